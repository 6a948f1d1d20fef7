/**
 * A second S3 server for the UI tests: @20minutes/s3rver, which verifies
 * SigV4 signatures against its configured keys (moto does not) and silently
 * ignores If-None-Match / If-Match on PUT (moto honours them). Started and
 * stopped (by PID) by scripts/serve.py in test mode.
 *
 * Usage: node scripts/s3rver_server.js --port P --directory DIR
 *          --origin URL [--origin URL ...]
 * The access key id and secret are read from S3RVER_ACCESS_KEY_ID and
 * S3RVER_SECRET_ACCESS_KEY (not arguments, which other users can list).
 * Prints one JSON line {"endpoint_url": ...} once it answers.
 */
'use strict';

const fs = require('fs');
const path = require('path');

// The package is a dev dependency of ui-tests/ (installed by `make test`).
const uiTests = path.join(__dirname, '..', 'ui-tests');
const resolve = name => require.resolve(name, { paths: [uiTests] });
const S3rver = require(resolve('@20minutes/s3rver'));
const s3rverLib = path.dirname(resolve('@20minutes/s3rver'));
const AWSAccount = require(path.join(s3rverLib, 'models', 'account'));
const v4 = require(path.join(s3rverLib, 'signature', 'v4'));

/**
 * Work around an s3rver 5.0.0 bug: for a bucket request (ListObjectsV2,
 * HeadBucket, ...) it computes the signature over the path `/bucket`,
 * while the AWS SDK for JavaScript v3 sends and signs `/bucket/`, so every
 * such request of the extension would fail with SignatureDoesNotMatch
 * whatever the keys. The raw path is handed to the signature code in a
 * request header of its own (not signed, not an x-amz- header), and used
 * when it is the computed path plus a slash. Real S3 needs nothing.
 */
const RAW_PATH = 'x-bookshelf-fixture-raw-path';
const getStringToSign = v4.getStringToSign;
v4.getStringToSign = (canonicalRequest, request) => {
  const raw = canonicalRequest.headers[RAW_PATH];
  const uri = canonicalRequest.uri;
  const fixed =
    /^\/[^/]+$/.test(uri) && raw === `${uri}/`
      ? { ...canonicalRequest, uri: raw }
      : canonicalRequest;
  return getStringToSign(fixed, request);
};
function keepRawPath(server) {
  server.middleware.unshift((ctx, next) => {
    ctx.req.headers[RAW_PATH] = ctx.path;
    return next();
  });
}

function parseArgs(argv) {
  const args = { origins: [] };
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (value === undefined) {
      throw new Error(`${name} needs a value`);
    }
    if (name === '--port') {
      args.port = Number(value);
    } else if (name === '--directory') {
      args.directory = value;
    } else if (name === '--origin') {
      args.origins.push(value);
    } else {
      throw new Error(`unknown argument ${name}`);
    }
  }
  if (!args.port || !args.directory || args.origins.length === 0) {
    throw new Error('--port, --directory and at least one --origin are needed');
  }
  return args;
}

function escapeXml(text) {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/**
 * The CORS rule the extension proposes to admins, from its one definition
 * (src/rules/cors.json), for these origins: the moto fixture uses it too.
 */
function corsXml(origins) {
  const rule = JSON.parse(
    fs.readFileSync(
      path.join(__dirname, '..', 'src', 'rules', 'cors.json'),
      'utf8'
    )
  );
  const lines = ['<CORSConfiguration>', '<CORSRule>'];
  for (const origin of origins) {
    lines.push(`<AllowedOrigin>${escapeXml(origin)}</AllowedOrigin>`);
  }
  for (const method of rule.AllowedMethods) {
    lines.push(`<AllowedMethod>${method}</AllowedMethod>`);
  }
  for (const header of rule.AllowedHeaders) {
    lines.push(`<AllowedHeader>${escapeXml(header)}</AllowedHeader>`);
  }
  for (const header of rule.ExposeHeaders) {
    lines.push(`<ExposeHeader>${header}</ExposeHeader>`);
  }
  lines.push(
    `<MaxAgeSeconds>${rule.MaxAgeSeconds}</MaxAgeSeconds>`,
    '</CORSRule>',
    '</CORSConfiguration>'
  );
  return lines.join('\n');
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const accessKeyId = process.env.S3RVER_ACCESS_KEY_ID;
  const secret = process.env.S3RVER_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secret) {
    throw new Error(
      'S3RVER_ACCESS_KEY_ID and S3RVER_SECRET_ACCESS_KEY must be set'
    );
  }
  // Only the project's key pair: s3rver's built-in S3RVER/S3RVER would be
  // a second pair that signs valid requests.
  AWSAccount.DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
  AWSAccount.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secret);

  const cors = corsXml(args.origins);
  const server = new S3rver({
    address: '127.0.0.1',
    port: args.port,
    directory: args.directory,
    silent: true,
    // Path-style URLs only, as the extension sends for custom endpoints.
    vhostBuckets: false,
    configureBuckets: ['examples', 'published'].map(name => ({
      name,
      configs: [cors]
    }))
  });
  keepRawPath(server);
  const address = await server.run();
  const stop = () => server.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(
    JSON.stringify({
      endpoint_url: `http://${address.address}:${address.port}`
    }) + '\n'
  );
}

main().catch(error => {
  process.stderr.write(`s3rver_server: ${error.message}\n`);
  process.exit(1);
});
