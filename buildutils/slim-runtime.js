// A smaller module federation runtime, swapped in for parts of rspack's at
// build time (webpack.config.js).
//
// Why by hand: JupyterLab fetches every prebuilt extension's remoteEntry at
// start-up, before any of the extension's own code, and most of it is
// rspack's runtime, written for every kind of build. In ours, the runtime for
// consuming shared modules was 8 of the entry's 13 KB: a semver range parser
// and twelve loaders for every combination of strict, singleton, fallback and
// version check, with a long record per consumed package. This extension
// consumes only JupyterLab's own singletons (no fallback, no strict version),
// so it needs one loader: the version already loaded (else the highest),
// with the same console warning as rspack when it does not satisfy the caret
// range of package.json. The share scope's initialization also serves remote
// containers, which this extension has none of. The script loader and the
// public path are written for bundles loaded in other ways too (a worker, a
// script tag already in the page); JupyterLab, Notebook 7 and JupyterLite
// add each extension's entry and chunks with a script tag of their own. No
// library offers this, and rspack has no option for it.
//
// Each swap is made only when rspack's module is the one it was written for:
// anything else (a bundled fallback, a strict version, another range, a
// remote, a loader with options added) keeps rspack's module, with a build
// warning. src/__tests__/slim-runtime.spec.ts runs each swap.

const vm = require('vm');

/**
 * The line of a runtime module that sets `__webpack_require__.<name>`, and
 * its value: rspack writes such data as a JavaScript object literal (with
 * `undefined`, and functions of `__webpack_require__` that are made, not
 * called). Null when the module has no such line.
 */
function readData(source, name) {
  const prefix = `__webpack_require__.${name} = `;
  const line = source.split('\n').find(text => text.startsWith(prefix));
  if (!line) {
    return null;
  }
  const literal = line.slice(prefix.length).replace(/;\s*$/, '');
  return { line, data: vm.runInNewContext(`(${literal})`) };
}

/** `^1.2.3` or `^1.2.3-pre.1`, major above 0 (caret then means "same major"). */
const CARET_RANGE = /^\^([1-9]\d*\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/;

/**
 * The consumes of rspack's runtime source, as `{chunkId: {moduleId: [key,
 * version]}}` (the version the caret range starts at, or null), or the reason
 * this runtime cannot stand in for rspack's.
 */
function readConsumes(source) {
  const { data } = readData(source, 'consumesLoadingData') ?? {};
  if (!data) {
    return { reason: 'no consumesLoadingData in the runtime module' };
  }
  if ((data.initialConsumes ?? []).length > 0) {
    return { reason: 'eager (initial) consumes' };
  }
  const consumes = {};
  for (const [chunkId, moduleIds] of Object.entries(data.chunkMapping)) {
    consumes[chunkId] = {};
    for (const moduleId of moduleIds) {
      const consume = data.moduleIdToConsumeDataMapping[moduleId];
      const name = consume?.shareKey;
      if (
        !consume ||
        consume.shareScope !== 'default' ||
        consume.singleton !== true ||
        consume.strictVersion ||
        consume.eager ||
        consume.fallback ||
        consume.import
      ) {
        return { reason: `${name}: not a singleton without fallback` };
      }
      let version = null;
      if (consume.requiredVersion) {
        const caret = CARET_RANGE.exec(consume.requiredVersion);
        if (!caret) {
          return { reason: `${name}: range ${consume.requiredVersion}` };
        }
        version = caret[1];
      }
      consumes[chunkId][moduleId] = [name, version];
    }
  }
  return { consumes };
}

/**
 * The runtime's source for `consumes` (see readConsumes). Rspack's helpers:
 * `.S` share scopes, `.I` their initialization, `.o` own property, `.m`
 * module factories, `.c` module cache, `.f` chunk loading steps.
 */
function consumesRuntime(consumes) {
  return `
var consumes = ${JSON.stringify(consumes)};
var consumed = {};
// A version as a list that compares as semver orders versions: its numbers,
// then Infinity for a release, or -1 and the identifiers of a pre-release
// (numbers below words, fewer identifiers lower).
var parseVersion = function (version) {
  var match = /^([^-+]*)(?:-([^+]*))?/.exec(version);
  return match[1].split(".").map(Number).concat(match[2] === undefined ? [Infinity] : [-1].concat(match[2].split(".").map(function (part) {
    return /^\\d+$/.test(part) ? +part : part;
  })));
};
var versionLt = function (a, b) {
  a = parseVersion(a);
  b = parseVersion(b);
  for (var i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === b[i]) continue;
    if (a[i] === undefined || b[i] === undefined) return a[i] === undefined;
    return typeof a[i] !== typeof b[i] ? typeof a[i] === "number" : a[i] < b[i];
  }
  return false;
};
var loadSingleton = function (key, required) {
  var scope = __webpack_require__.S["default"];
  var versions = scope && __webpack_require__.o(scope, key) && scope[key];
  if (!versions) throw Error("Shared module " + key + " doesn't exist in shared scope default");
  // The version a container loaded already, else the highest.
  var version = Object.keys(versions).reduce(function (a, b) {
    return !a || (!versions[a].loaded && versionLt(a, b)) ? b : a;
  }, 0);
  if (required && (parseVersion(version)[0] !== parseVersion(required)[0] || versionLt(version, required))) {
    console.warn("Unsatisfied version " + version + " from " + versions[version].from + " of shared singleton module " + key + " (required ^" + required + ")");
  }
  var entry = versions[version];
  entry.loaded = 1;
  return entry.get();
};
__webpack_require__.f.consumes = function (chunkId, promises) {
  if (!__webpack_require__.o(consumes, chunkId)) return;
  Object.keys(consumes[chunkId]).forEach(function (id) {
    if (__webpack_require__.o(consumed, id)) return promises.push(consumed[id]);
    var onFactory = function (factory) {
      consumed[id] = 0;
      __webpack_require__.m[id] = function (module) {
        delete __webpack_require__.c[id];
        module.exports = factory();
      };
    };
    var onError = function (error) {
      delete consumed[id];
      __webpack_require__.m[id] = function () {
        delete __webpack_require__.c[id];
        throw error;
      };
    };
    try {
      var load = loadSingleton.bind(null, consumes[chunkId][id][0], consumes[chunkId][id][1]);
      var init = __webpack_require__.I("default");
      var result = init && init.then ? init.then(load) : load();
      if (result.then) promises.push(consumed[id] = result.then(onFactory)["catch"](onError));
      else onFactory(result);
    } catch (error) {
      onError(error);
    }
  });
};
`;
}

/** rspack's `load_script` as this runtime needs it, or the reason not. */
function loadScriptRuntime(source) {
  const expected = '__webpack_require__.l = function (url, done, key, chunkId)';
  // Trusted types, crossorigin or module scripts: options this one lacks.
  if (
    !source.includes(expected) ||
    /crossOrigin|\.tt\(|"module"/.test(source)
  ) {
    return { reason: 'a script loader with options' };
  }
  return {
    source: `
var inProgress = {};
__webpack_require__.l = function (url, done) {
  if (inProgress[url]) return void inProgress[url].push(done);
  var script = document.createElement("script");
  if (__webpack_require__.nc) script.setAttribute("nonce", __webpack_require__.nc);
  script.src = url;
  inProgress[url] = [done];
  var onComplete = function (event) {
    script.onerror = script.onload = null;
    clearTimeout(timeout);
    var doneFns = inProgress[url];
    delete inProgress[url];
    script.parentNode && script.parentNode.removeChild(script);
    doneFns && doneFns.forEach(function (fn) { fn(event); });
  };
  var timeout = setTimeout(function () {
    onComplete({ type: "timeout", target: script });
  }, 120000);
  script.onerror = script.onload = onComplete;
  document.head.appendChild(script);
};
`
  };
}

/** rspack's `auto_public_path` as this runtime needs it, or the reason not. */
function publicPathRuntime(source) {
  if (!source.includes('document.currentScript')) {
    return { reason: 'a public path found otherwise' };
  }
  // The element's tag is checked as rspack does: a page's <img name=
  // "currentScript"> would otherwise stand for the script.
  return {
    source: `
var script = document.currentScript;
if (!script || script.tagName.toUpperCase() !== "SCRIPT") throw new Error("Automatic publicPath is not supported in this browser");
__webpack_require__.p = script.src.replace(/^blob:/, "").replace(/[?#].*$/, "").replace(/\\/[^\\/]+$/, "/");
`
  };
}

/** rspack's `sharing` (share scope initialization) as this runtime needs it,
 * or the reason not: only this extension's own package is provided, no
 * remote container's scope is initialized with it. */
function sharingRuntime(source) {
  const { line, data } = readData(source, 'initializeSharingData') ?? {};
  if (!data) {
    return { reason: 'no initializeSharingData in the runtime module' };
  }
  const stages = Object.values(data.scopeToSharingDataMapping).flat();
  if (stages.some(stage => typeof stage !== 'object')) {
    return { reason: 'remote containers to initialize' };
  }
  return {
    source: `
__webpack_require__.S = {};
${line}
var initialized = {};
// Registers the packages this container provides, once per scope; a version
// another container registered stays unless it is not loaded yet and this one
// is eager (or, as eager, comes later by name), as rspack decides.
__webpack_require__.I = function (name) {
  if (initialized[name]) return 1;
  initialized[name] = 1;
  if (!__webpack_require__.o(__webpack_require__.S, name)) __webpack_require__.S[name] = {};
  var scope = __webpack_require__.S[name];
  var from = __webpack_require__.initializeSharingData.uniqueName;
  (__webpack_require__.initializeSharingData.scopeToSharingDataMapping[name] || []).forEach(function (stage) {
    var versions = (scope[stage.name] = scope[stage.name] || {});
    var active = versions[stage.version];
    if (!active || (!active.loaded && (!stage.eager != !active.eager ? stage.eager : from > active.from)))
      versions[stage.version] = { get: stage.factory, from: from, eager: !!stage.eager };
  });
  return 1;
};
`
  };
}

function consumesLoadingRuntime(source) {
  const read = readConsumes(source);
  return read.consumes
    ? { source: consumesRuntime(read.consumes) }
    : { reason: read.reason };
}

/** The runtime modules swapped, by rspack's name for them. */
const SWAPS = {
  consumes_loading: consumesLoadingRuntime,
  sharing: sharingRuntime,
  load_script: loadScriptRuntime,
  auto_public_path: publicPathRuntime
};

/** Rspack plugin: swaps the runtime modules of SWAPS in where they allow. */
class SlimRuntimePlugin {
  apply(compiler) {
    compiler.hooks.compilation.tap('SlimRuntimePlugin', compilation => {
      compilation.hooks.runtimeModule.tap('SlimRuntimePlugin', module => {
        const swap = SWAPS[module.name];
        if (!swap || !module.source) {
          return;
        }
        const swapped = swap(module.source.source.toString('utf-8'));
        if (swapped.source) {
          module.source.source = Buffer.from(swapped.source);
        } else {
          compilation.warnings.push(
            new compiler.rspack.WebpackError(
              `SlimRuntimePlugin: rspack's ${module.name} kept (${swapped.reason}).`
            )
          );
        }
      });
    });
  }
}

module.exports = {
  SlimRuntimePlugin,
  consumesRuntime,
  loadScriptRuntime,
  publicPathRuntime,
  readConsumes,
  sharingRuntime
};
