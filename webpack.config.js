// Merged into the JupyterLab builder's configuration (package.json's
// `jupyterlab.webpackConfig`). It makes the module federation entry
// (remoteEntry.*.js) smaller: JupyterLab fetches it at start-up for every
// prebuilt extension, before any of the extension's own code, and most of
// it is rspack's runtime, the same for every extension.
const rspack = require('@rspack/core');
const { SlimRuntimePlugin } = require('./buildutils/slim-runtime');

module.exports = {
  // Parts of rspack's runtime written for this extension's needs: the entry
  // is half the size (buildutils/slim-runtime.js).
  plugins: [new SlimRuntimePlugin()],
  output: {
    // The builder names chunks `[name].[contenthash].js?v=[contenthash]`,
    // which puts two maps of every chunk's hash in the entry. The name's
    // hash already changes with the content; Jupyter's server only needs a
    // `v` argument to let the browser cache the file.
    chunkFilename: '[name].[contenthash:8].js?v=[fullhash:8]'
  },
  optimization: {
    // Modules that several lazy chunks share (the error model, URLs, byte
    // helpers) go to a chunk of their own from 10 KB, not rspack's 20 KB:
    // below that they were copied into each chunk that uses them, and which
    // ones crossed the line moved with any small change (a clone loaded the
    // same 6 KB twice). All chunks together: 437 KB → 402 KB.
    splitChunks: {
      minSize: 10000,
      cacheGroups: {
        // The S3 SDK and the one module that uses it: loaded with the model
        // on first use, in parallel with it, as one file the benchmarks can
        // name (the S3 code a first clone loads).
        s3: {
          test: /[\\/](src[\\/]s3[\\/]client\.ts|node_modules[\\/](@aws-sdk|@smithy|@aws-crypto|@aws)[\\/])/,
          name: 'bookshelf-s3',
          chunks: 'async',
          enforce: true
        }
      }
    },
    minimizer: [
      new rspack.SwcJsMinimizerRspackPlugin({ exclude: /remoteEntry/ }),
      // The entry is rspack's runtime, written as ES5 function expressions
      // that do not use `this` or `arguments`: as arrow functions (ES2015,
      // which every browser JupyterLab 4 runs in supports) it is about 1 KB
      // smaller. Only the entry: the bundled S3 SDK is left as it is.
      new rspack.SwcJsMinimizerRspackPlugin({
        include: /remoteEntry/,
        minimizerOptions: {
          ecma: 2018,
          compress: { ecma: 2018, unsafe_arrows: true }
        }
      })
    ]
  }
};
