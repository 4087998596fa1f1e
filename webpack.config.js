// One webpack run builds the three server entry points (api, worker, cli) into
// dist/apps/<name>/main.js. Type checking is done by `npm run typecheck`, not here.
const path = require('path');
const nodeExternals = require('webpack-node-externals');
const TsconfigPathsPlugin = require('tsconfig-paths-webpack-plugin');

const apps = ['api', 'worker', 'cli'];

module.exports = apps.map((name) => ({
  name,
  target: 'node',
  mode: 'none',
  devtool: 'source-map',
  entry: path.join(__dirname, 'apps', name, 'src', 'main.ts'),
  output: { path: path.join(__dirname, 'dist', 'apps', name), filename: 'main.js' },
  externals: [nodeExternals()],
  externalsPresets: { node: true },
  resolve: {
    extensions: ['.ts', '.js'],
    plugins: [new TsconfigPathsPlugin({ configFile: path.join(__dirname, 'tsconfig.build.json') })],
  },
  module: {
    rules: [
      {
        test: /\.ts$/,
        loader: 'ts-loader',
        exclude: /node_modules/,
        options: { transpileOnly: true, configFile: path.join(__dirname, 'tsconfig.build.json') },
      },
    ],
  },
  optimization: { nodeEnv: false },
  node: { __dirname: false, __filename: false },
  stats: 'errors-warnings',
}));
