/**
 * MD5 of the same 50 MB, three ways: Bookshelf's own (src/s3/md5.ts), the
 * AWS SDK's JavaScript one (@smithy/md5-js, not a dependency: put it on
 * NODE_PATH; its `Md5Js`, which is what its browser build uses, since its
 * Node build hands over to node:crypto) and Node's native one, median of 5
 * runs. Why src/s3/md5.ts is
 * hand-written: see the line of bench/README.md that quotes this script.
 *
 *   NODE_PATH=<a folder with @smithy/md5-js> node bench/md5.js
 */
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const ts = require('typescript');

function loadOwnMd5() {
  const file = path.join(__dirname, '..', 'src', 's3', 'md5.ts');
  const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2019
    }
  });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', outputText)(
    module,
    module.exports,
    require
  );
  return module.exports;
}

async function median(run) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const start = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times.sort((a, b) => a - b)[2];
}

async function main() {
  const bytes = crypto.randomBytes(50 * 1024 * 1024);
  const chunk = 1024 * 1024;
  const expected = crypto.createHash('md5').update(bytes).digest('hex');
  const own = loadOwnMd5();
  const hex = digest => Buffer.from(digest).toString('hex');
  const results = {};
  results['src/s3/md5.ts'] = await median(() => {
    const hash = new own.Md5();
    for (let at = 0; at < bytes.length; at += chunk) {
      hash.update(bytes.subarray(at, at + chunk));
    }
    if (hex(hash.digest()) !== expected) throw new Error('own MD5 is wrong');
  });
  let Smithy;
  try {
    // The browser's class (in Node, `Md5` is node:crypto's).
    Smithy = require('@smithy/core/checksum').Md5Js;
  } catch {
    console.log('@smithy/md5-js not found on NODE_PATH: skipped');
  }
  if (Smithy) {
    results['@smithy/md5-js (Md5Js, its browser MD5)'] = await median(
      async () => {
        const hash = new Smithy();
        for (let at = 0; at < bytes.length; at += chunk) {
          hash.update(bytes.subarray(at, at + chunk));
        }
        if (hex(await hash.digest()) !== expected) {
          throw new Error('SDK MD5 is wrong');
        }
      }
    );
  }
  results['node:crypto (native)'] = await median(() => {
    crypto.createHash('md5').update(bytes).digest();
  });
  for (const [name, ms] of Object.entries(results)) {
    console.log(`${name}: ${ms.toFixed(0)} ms for 50 MB`);
  }
}

void main();
