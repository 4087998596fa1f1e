// `npm run bench -- mixed`: the production bench's mixed phase alone (single posts, batches, feed
// reads, adds and webhooks together for 5 minutes, api and worker RSS sampled every second).
const production = require('./production.bench');

module.exports = { run: () => production.run({ mixedOnly: true }) };
