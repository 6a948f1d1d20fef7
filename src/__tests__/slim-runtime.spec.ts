/**
 * The build's smaller module federation runtime (buildutils/slim-runtime.js),
 * run as the browser runs it: against share scopes shaped as JupyterLab's,
 * script elements of jsdom, and semver as the judge of version order.
 */
import * as semver from 'semver';

// The build's own CommonJS module (used by webpack.config.js in Node).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const slim = require('../../buildutils/slim-runtime') as {
  readConsumes(source: string): {
    consumes?: Record<string, Record<string, [string, string | null]>>;
    reason?: string;
  };
  consumesRuntime(
    consumes: Record<string, Record<string, [string, string | null]>>
  ): string;
  loadScriptRuntime(source: string): { source?: string; reason?: string };
  publicPathRuntime(source: string): { source?: string; reason?: string };
  sharingRuntime(source: string): { source?: string; reason?: string };
};

/** One consume record as rspack 2 writes it. */
function record(key: string, extra: Record<string, string> = {}): string {
  const fields = {
    shareScope: '"default"',
    shareKey: JSON.stringify(key),
    import: 'null',
    requiredVersion: '"^4.6.4"',
    strictVersion: 'false',
    singleton: 'true',
    eager: 'false',
    fallback: 'undefined',
    treeShakingMode: 'null',
    ...extra
  };
  return `{ ${Object.entries(fields)
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ')} }`;
}

/** rspack's consumes_loading module, its data line and a line of code. */
function rspackSource(records: Record<string, string>, initial = '[]'): string {
  const ids = Object.keys(records);
  const mapping = ids.map(id => `"${id}": ${records[id]}`).join(', ');
  return [
    '',
    `__webpack_require__.consumesLoadingData = { chunkMapping: {"118":${JSON.stringify(ids)}}, moduleIdToConsumeDataMapping: {${mapping}}, initialConsumes: ${initial} };`,
    'var splitAndConvert = function(str) {};'
  ].join('\n');
}

interface IVersion {
  get: () => Promise<() => unknown>;
  from: string;
  eager: boolean;
  loaded?: number;
}

/** A share scope entry that gives `value`. */
function provided(value: unknown, loaded = false, from = 'core'): IVersion {
  return {
    get: () => Promise.resolve(() => value),
    from,
    eager: false,
    ...(loaded ? { loaded: 1 } : {})
  };
}

/** The runtime's `__webpack_require__`, as far as the consumes use it. */
function runtimeWith(
  consumes: Record<string, Record<string, [string, string | null]>>,
  scope: Record<string, Record<string, IVersion>>,
  init: () => Promise<void> | number | undefined = () => 1
) {
  const require: any = (id: string) => {
    const module = { exports: {} as unknown };
    require.m[id](module);
    return module.exports;
  };
  require.S = { default: scope };
  require.I = init;
  require.o = (object: object, key: string) =>
    Object.prototype.hasOwnProperty.call(object, key);
  require.m = {};
  require.c = {};
  require.f = {};
  new Function('__webpack_require__', slim.consumesRuntime(consumes))(require);
  /** Loads the chunk's consumes, as rspack's `__webpack_require__.e`. */
  const loadChunk = async (chunkId: string) => {
    const promises: Promise<unknown>[] = [];
    require.f.consumes(chunkId, promises);
    await Promise.all(promises);
  };
  return { require, loadChunk };
}

describe('readConsumes', () => {
  it("reads JupyterLab's singletons as chunk, module, package and version", () => {
    const read = slim.readConsumes(
      rspackSource({
        '2369': record('@jupyterlab/application'),
        '1660': record('@lumino/widgets', {
          requiredVersion: '"^2.3.1-alpha.1"'
        }),
        '9': record('@lumino/coreutils', { requiredVersion: 'false' })
      })
    );
    expect(read).toEqual({
      consumes: {
        '118': {
          '2369': ['@jupyterlab/application', '4.6.4'],
          '1660': ['@lumino/widgets', '2.3.1-alpha.1'],
          '9': ['@lumino/coreutils', null]
        }
      }
    });
  });

  it.each([
    ['a bundled fallback', { fallback: '() => 1' }],
    ['a strict version', { strictVersion: 'true' }],
    ['a package that is not a singleton', { singleton: 'false' }],
    ['an eager consume', { eager: 'true' }],
    ['a tilde range', { requiredVersion: '"~4.6.4"' }],
    ['a range of several parts', { requiredVersion: '">=4.6.4 <5"' }],
    ['a caret range below 1.0', { requiredVersion: '"^0.4.1"' }],
    ['another share scope', { shareScope: '"other"' }]
  ])("keeps rspack's runtime for %s", (_name, extra) => {
    const read = slim.readConsumes(
      rspackSource({ '1': record('react', extra) })
    );
    expect(read.consumes).toBeUndefined();
    expect(read.reason).toMatch(/react/);
  });

  it("keeps rspack's runtime for initial consumes or a source of another shape", () => {
    expect(
      slim.readConsumes(rspackSource({ '1': record('react') }, '["1"]')).reason
    ).toBe('eager (initial) consumes');
    expect(slim.readConsumes('var x = 1;').reason).toMatch(/no consumes/);
  });
});

describe('the consumes runtime', () => {
  it('gives the version a container loaded already, though a higher one is there', async () => {
    const scope = {
      react: {
        '18.3.1': provided('react 18.3.1', true),
        '18.9.0': provided('react 18.9.0')
      }
    };
    const { require, loadChunk } = runtimeWith(
      { '118': { '7': ['react', '18.2.0'] } },
      scope
    );
    await loadChunk('118');
    expect(require('7')).toBe('react 18.3.1');
    expect(scope.react['18.9.0'].loaded).toBeUndefined();
  });

  it('without a loaded one, gives the highest and marks it loaded', async () => {
    const scope = {
      '@jupyterlab/services': {
        '7.6.4-rc.1': provided('rc'),
        '7.6.10': provided('7.6.10'),
        '7.6.9': provided('7.6.9')
      }
    };
    const { require, loadChunk } = runtimeWith(
      { '633': { '2904': ['@jupyterlab/services', '7.6.4'] } },
      scope
    );
    await loadChunk('633');
    expect(require('2904')).toBe('7.6.10');
    expect(scope['@jupyterlab/services']['7.6.10'].loaded).toBe(1);
  });

  const versions = [
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
    '1.0.1',
    '1.2.0',
    '1.10.0',
    '2.0.0-alpha.9',
    '2.0.0-alpha.10',
    '2.0.0',
    '10.0.0'
  ];
  it('orders versions as semver does: every pair of a list with pre-releases', async () => {
    const wrong: string[] = [];
    for (const a of versions) {
      for (const b of versions.filter(version => version !== a)) {
        const scope = { pkg: { [a]: provided(a), [b]: provided(b) } };
        const { require, loadChunk } = runtimeWith(
          { '1': { '5': ['pkg', null] } },
          scope
        );
        await loadChunk('1');
        const highest = semver.gt(a, b) ? a : b;
        if (require('5') !== highest) {
          wrong.push(`${a} and ${b}: ${require('5')}, not ${highest}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each([
    ['4.5.2', true],
    ['5.0.0', true],
    ['4.6.3', true],
    ['4.6.4-rc.0', true],
    ['4.6.4', false],
    ['4.7.0', false]
  ])(
    'with %s where ^4.6.4 is required, warns as rspack does: %s',
    async (version, warns) => {
      const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
      try {
        const { require, loadChunk } = runtimeWith(
          { '1': { '5': ['@jupyterlab/application', '4.6.4'] } },
          { '@jupyterlab/application': { [version]: provided(version, true) } }
        );
        await loadChunk('1');
        // The version there is used either way, as rspack does for a
        // singleton without a strict version.
        expect(require('5')).toBe(version);
        expect(warn.mock.calls).toEqual(
          warns
            ? [
                [
                  `Unsatisfied version ${version} from core of shared singleton module @jupyterlab/application (required ^4.6.4)`
                ]
              ]
            : []
        );
      } finally {
        warn.mockRestore();
      }
    }
  );

  it('fails the module, not the page, when the package is not shared', async () => {
    const { require, loadChunk } = runtimeWith(
      { '1': { '5': ['@jupyterlab/missing', '4.6.4'] } },
      {}
    );
    await loadChunk('1');
    expect(() => require('5')).toThrow(
      "Shared module @jupyterlab/missing doesn't exist in shared scope default"
    );
  });

  it('waits for the share scope to be initialized', async () => {
    const scope: Record<string, Record<string, IVersion>> = {};
    let initialized: () => void = () => undefined;
    const init = new Promise<void>(resolve => (initialized = resolve));
    const { require, loadChunk } = runtimeWith(
      { '1': { '5': ['react', null] } },
      scope,
      () => init
    );
    const loading = loadChunk('1');
    // Another container registers react while the scope initializes.
    scope.react = { '18.3.1': provided('react') };
    initialized();
    await loading;
    expect(require('5')).toBe('react');
  });

  it('consumes a module once for the chunks that share it, and nothing for other chunks', async () => {
    const get = jest.fn(() => Promise.resolve(() => 'react'));
    const { require, loadChunk } = runtimeWith(
      { '1': { '5': ['react', null] }, '2': { '5': ['react', null] } },
      { react: { '18.3.1': { get, from: 'core', eager: false } } }
    );
    await loadChunk('1');
    await loadChunk('2');
    await loadChunk('3');
    expect(require('5')).toBe('react');
    expect(get).toHaveBeenCalledTimes(1);
  });
});

describe('the script loader', () => {
  const rspackLoader =
    'var inProgress = {};\n__webpack_require__.l = function (url, done, key, chunkId) {\n};';

  function loader(nonce?: string) {
    const swapped = slim.loadScriptRuntime(rspackLoader);
    const require: any = { nc: nonce };
    new Function('__webpack_require__', swapped.source!)(require);
    return require.l as (url: string, done: (event: any) => void) => void;
  }

  afterEach(() => {
    document.head.innerHTML = '';
  });

  it('adds one script for a chunk asked for twice, and tells both when it loads', () => {
    const load = loader('abc');
    const first = jest.fn();
    const second = jest.fn();
    load('http://lab/static/118.js?v=1', first);
    load('http://lab/static/118.js?v=1', second);
    const scripts = document.head.querySelectorAll('script');
    expect(scripts).toHaveLength(1);
    expect(scripts[0].src).toBe('http://lab/static/118.js?v=1');
    expect(scripts[0].getAttribute('nonce')).toBe('abc');
    const loaded = new Event('load');
    scripts[0].onload!(loaded);
    expect(first).toHaveBeenCalledWith(loaded);
    expect(second).toHaveBeenCalledWith(loaded);
    // The element goes once run, as rspack's does.
    expect(document.head.querySelectorAll('script')).toHaveLength(0);
  });

  it('tells of a failed load, and loads again when asked again', () => {
    const load = loader();
    const done = jest.fn();
    load('http://lab/static/118.js', done);
    const script = document.head.querySelector('script')!;
    expect(script.hasAttribute('nonce')).toBe(false);
    const failed = new Event('error');
    script.onerror!(failed);
    expect(done).toHaveBeenCalledWith(failed);
    load('http://lab/static/118.js', done);
    expect(document.head.querySelectorAll('script')).toHaveLength(1);
  });

  it('gives up on a script that neither loads nor fails after two minutes', () => {
    jest.useFakeTimers();
    try {
      const load = loader();
      const done = jest.fn();
      load('http://lab/static/118.js', done);
      jest.advanceTimersByTime(120000);
      expect(done).toHaveBeenCalledWith(
        expect.objectContaining({ type: 'timeout' })
      );
    } finally {
      jest.useRealTimers();
    }
  });

  it("keeps rspack's loader when it has options this one lacks", () => {
    expect(
      slim.loadScriptRuntime(rspackLoader + "\nscript.crossOrigin = 'x';")
        .reason
    ).toMatch(/options/);
    expect(slim.loadScriptRuntime('var x;').reason).toMatch(/options/);
  });
});

describe('the public path', () => {
  function publicPath(currentScript: unknown): string {
    const swapped = slim.publicPathRuntime(
      'if (document.currentScript) scriptUrl = document.currentScript.src;'
    );
    const require: any = {};
    new Function('__webpack_require__', 'document', swapped.source!)(require, {
      currentScript
    });
    return require.p;
  }

  it("is the folder of the entry's script, without its query", () => {
    expect(
      publicPath({
        tagName: 'SCRIPT',
        src: 'https://hub.example/user/ada/lab/extensions/jupyterlab-bookshelf/static/remoteEntry.3c74.js?v=3c74#x'
      })
    ).toBe(
      'https://hub.example/user/ada/lab/extensions/jupyterlab-bookshelf/static/'
    );
  });

  it('is not taken from an element that clobbers document.currentScript', () => {
    expect(() =>
      publicPath({ tagName: 'IMG', src: 'https://elsewhere.example/x.png' })
    ).toThrow('Automatic publicPath is not supported in this browser');
    expect(() => publicPath(null)).toThrow(/publicPath/);
  });
});

describe('the share scope initialization', () => {
  /** rspack's sharing module: its data line and the start of its code. */
  const rspackSharing = (stages: string) =>
    [
      '',
      '__webpack_require__.S = {};',
      `__webpack_require__.initializeSharingData = { scopeToSharingDataMapping: { "default": [${stages}] }, uniqueName: "jupyterlab-bookshelf" };`,
      'var initPromises = {};'
    ].join('\n');
  const ours =
    '{ name: "jupyterlab-bookshelf", version: "0.1.0", factory: () => __webpack_require__.ours, eager: 0, treeShakingMode: null }';

  function initialize(scope: Record<string, Record<string, any>>) {
    const swapped = slim.sharingRuntime(rspackSharing(ours));
    const require: any = {
      ours: 'ours',
      o: (object: object, key: string) =>
        Object.prototype.hasOwnProperty.call(object, key)
    };
    new Function('__webpack_require__', swapped.source!)(require);
    // As the container's init does: JupyterLab's scope, then I.
    require.S.default = scope;
    expect(require.I('default')).toBe(1);
    expect(require.I('default')).toBe(1);
    return scope;
  }

  it("provides this extension's package in JupyterLab's scope", () => {
    const scope = initialize({ react: {} });
    expect(scope['jupyterlab-bookshelf']['0.1.0']).toEqual({
      get: expect.any(Function),
      from: 'jupyterlab-bookshelf',
      eager: false
    });
    expect(scope['jupyterlab-bookshelf']['0.1.0'].get()).toBe('ours');
  });

  it('keeps the same version from another container that loaded it or whose name sorts later, as rspack does', () => {
    const loaded = {
      get: () => 'theirs',
      from: 'z-other',
      eager: false,
      loaded: 1
    };
    expect(
      initialize({ 'jupyterlab-bookshelf': { '0.1.0': loaded } })[
        'jupyterlab-bookshelf'
      ]['0.1.0']
    ).toBe(loaded);
    const first = { get: () => 'theirs', from: 'a-other', eager: false };
    expect(
      initialize({ 'jupyterlab-bookshelf': { '0.1.0': first } })[
        'jupyterlab-bookshelf'
      ]['0.1.0'].from
    ).toBe('jupyterlab-bookshelf');
    const later = { get: () => 'theirs', from: 'z-other', eager: false };
    expect(
      initialize({ 'jupyterlab-bookshelf': { '0.1.0': later } })[
        'jupyterlab-bookshelf'
      ]['0.1.0']
    ).toBe(later);
  });

  it("keeps rspack's initialization where remote containers share the scope", () => {
    expect(slim.sharingRuntime(rspackSharing(`${ours}, 2940`)).reason).toMatch(
      /remote/
    );
  });
});
