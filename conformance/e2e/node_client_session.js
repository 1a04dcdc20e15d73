// A realistic session of Node.js's official Redis client (Debian's node-redis, v4) against the
// server on the port given as the first argument: connecting with a name and a database,
// strings with options, automatic pipelining of concurrent commands, binary values, errors as
// rejected promises, a second connection (duplicate), isolated execution, INFO and CONFIG,
// MULTI/EXEC and WATCH unless told "no-multi", and pub/sub (subscribe and pSubscribe listeners on
// a duplicate connection). Every check is an assertion (a failure exits
// non-zero); the
// results, without connection ids, are printed as JSON on the last line so that the Python
// wrapper (test_node_client.py) can compare redis-server's session with keel-server's.
//
//   NODE_PATH=/usr/share/nodejs node node_client_session.js PORT [no-multi]
'use strict';

const assert = require('node:assert/strict');
const { createClient, commandOptions } = require('redis');

async function expectError(promise, fragment, what) {
  try {
    const result = await promise;
    assert.fail(`${what}: expected an error containing ${fragment}, got ${JSON.stringify(result)}`);
  } catch (error) {
    assert.ok(String(error.message).includes(fragment), `${what}: ${error.message}`);
    return error.message;
  }
}

async function main() {
  const port = Number(process.argv[2]);
  const withMulti = process.argv[3] !== 'no-multi';
  const results = {};
  const skipped = [];
  const client = createClient({
    socket: { host: '127.0.0.1', port, reconnectStrategy: false },
    name: 'node-session',
    database: 2,
  });
  client.on('error', (error) => console.error(`client error: ${error.message}`));
  await client.connect();

  assert.equal(await client.ping(), 'PONG', 'PING');
  assert.equal(await client.flushAll(), 'OK', 'FLUSHALL');
  assert.equal(await client.clientGetName(), 'node-session', 'the name given to createClient');

  // Strings with options.
  assert.equal(await client.set('page:home', '<html>'), 'OK', 'SET');
  assert.equal(await client.get('page:home'), '<html>', 'GET');
  assert.equal(await client.set('cache:q1', 'rows', { EX: 600 }), 'OK', 'SET EX');
  assert.equal(await client.set('cache:q1', 'again', { NX: true }), null, 'SET NX existing');
  assert.equal(await client.set('missing', 'x', { XX: true }), null, 'SET XX missing');
  assert.equal(await client.set('page:home', '<html2>', { GET: true }), '<html>', 'SET GET');
  assert.equal(await client.set('cache:q1', 'kept', { KEEPTTL: true }), 'OK', 'SET KEEPTTL');
  assert.equal(await client.set('lease', 'owner', { PX: 30000, NX: true }), 'OK', 'SET PX NX');
  assert.equal(await client.exists(['page:home', 'cache:q1', 'missing']), 2, 'EXISTS');
  assert.equal(await client.dbSize(), 3, 'DBSIZE of database 2');
  assert.equal(await client.del(['lease', 'missing']), 1, 'DEL');

  // Concurrent commands go out in one automatic pipeline; replies come back in order.
  const writes = [];
  for (let i = 0; i < 200; i++) writes.push(client.set(`item:${i}`, `v${i}`));
  assert.deepEqual(await Promise.all(writes), new Array(200).fill('OK'), '200 concurrent SETs');
  const reads = await Promise.all([client.get('item:0'), client.get('item:199'), client.dbSize()]);
  assert.deepEqual(reads, ['v0', 'v199', 202], 'concurrent reads');
  results.reads = reads;

  // Binary values, read back as a Buffer.
  const binary = Buffer.from([...Array(256).keys()]);
  assert.equal(await client.set('bin', binary), 'OK', 'SET binary');
  const back = await client.get(commandOptions({ returnBuffers: true }), 'bin');
  assert.ok(Buffer.isBuffer(back) && back.equals(binary), 'GET binary as a Buffer');

  // Errors reject the command's promise, and the connection goes on.
  results.errors = [
    await expectError(client.sendCommand(['SET', 'k', 'v', 'EX', '0']),
                      "invalid expire time in 'set' command", 'SET EX 0'),
    await expectError(client.sendCommand(['NOSUCHCOMMAND']), 'unknown command', 'unknown'),
    await expectError(client.sendCommand(['GET']), 'wrong number of arguments', 'GET alone'),
  ];
  assert.equal(await client.get('page:home'), '<html2>', 'GET after the errors');

  // A second connection, and SELECT.
  const other = client.duplicate({ name: 'node-second', database: 0 });
  other.on('error', (error) => console.error(`second client error: ${error.message}`));
  await other.connect();
  assert.equal(await other.get('page:home'), null, 'database 0 does not see database 2');
  await other.select(2);  // node-redis resolves SELECT with no value
  assert.equal(await other.get('page:home'), '<html2>', 'database 2 after SELECT');
  // node-redis 4.5 has no clientList(): the raw reply, one line per connection.
  const listed = String(await client.sendCommand(['CLIENT', 'LIST']));
  const names = listed.trim().split('\n').map((line) => line.match(/ name=(\S*) /)[1]).sort();
  assert.deepEqual(names, ['node-second', 'node-session'], 'CLIENT LIST names');
  const own = await client.clientInfo();
  assert.equal(own.name, 'node-session', 'CLIENT INFO name');
  assert.equal(own.db, 2, 'CLIENT INFO db');
  assert.equal(own.id, await client.clientId(), 'CLIENT INFO id is CLIENT ID');
  await other.quit();

  // Isolated execution takes a connection of its own from the pool.
  const isolated = await client.executeIsolated(async (isolatedClient) => {
    await isolatedClient.select(2);
    return isolatedClient.get('cache:q1');
  });
  assert.equal(isolated, 'kept', 'GET in an isolated connection');

  // INFO and CONFIG.
  const info = await client.info('keyspace');
  assert.match(info, /^db2:keys=203,expires=1,avg_ttl=\d+\r$/m, 'INFO keyspace');
  // configGet returns an object without a prototype: compare a plain copy.
  const configGet = async (name) => ({ ...(await client.configGet(name)) });
  assert.deepEqual(await configGet('maxmemory'), { maxmemory: '0' }, 'CONFIG GET');
  assert.equal(await client.configSet('hz', '20'), 'OK', 'CONFIG SET');
  assert.deepEqual(await configGet('hz'), { hz: '20' }, 'CONFIG GET after CONFIG SET');
  results.info = info.replace(/avg_ttl=\d+/, 'avg_ttl=N');

  // Transactions: multi() is one MULTI ... EXEC; WATCH in an isolated connection is broken by
  // another client's write, which node-redis reports as a WatchError.
  if (!withMulti) {
    skipped.push('MULTI/EXEC: keel-server has no MULTI yet (the transactions issue)');
  } else {
    const replies = await client.multi().set('balance', '100').incrBy('balance', 5)
        .get('balance').exec();
    assert.deepEqual(replies, ['OK', 105, '105'], 'MULTI/EXEC');
    const watched = await client.executeIsolated(async (isolatedClient) => {
      await isolatedClient.select(2);
      await isolatedClient.watch('balance');
      await client.set('balance', '1');
      try {
        await isolatedClient.multi().set('balance', '999').exec();
        return 'EXEC ran';
      } catch (error) {
        return error.constructor.name;
      }
    });
    assert.equal(watched, 'WatchError', 'EXEC after another client wrote a watched key');
    assert.equal(await client.get('balance'), '1', 'the broken transaction wrote nothing');
    results.transaction = replies.concat([watched]);
  }

  // Pub/sub: a duplicate connection subscribes (a channel and a pattern) with listeners;
  // messages arrive once each, in order; unsubscribing stops them.
  const subscriber = client.duplicate();
  subscriber.on('error', (error) => console.error(`subscriber error: ${error.message}`));
  await subscriber.connect();
  const heard = [];
  let allHeard;
  const heardAll = new Promise((resolve) => { allHeard = resolve; });
  await subscriber.subscribe('orders', (message, channel) => {
    heard.push(`${channel}:${message}`);
    if (heard.length === 51) allHeard();
  });
  await subscriber.pSubscribe('audit:*', (message, channel) => {
    heard.push(`${channel}:${message}`);
    if (heard.length === 51) allHeard();
  });
  for (let i = 0; i < 50; i++) {
    assert.equal(await client.publish('orders', `order-${i}`), 1, 'PUBLISH to one subscriber');
  }
  assert.equal(await client.publish('audit:login', 'ada'), 1, 'PUBLISH through a pattern');
  await heardAll;
  const expected = [];
  for (let i = 0; i < 50; i++) expected.push(`orders:order-${i}`);
  expected.push('audit:login:ada');
  assert.deepEqual(heard, expected, 'every message once, in order');
  assert.deepEqual({ ...(await client.pubSubNumSub(['orders', 'none'])) }, { orders: 1, none: 0 },
                   'PUBSUB NUMSUB');
  await subscriber.unsubscribe('orders');
  await subscriber.pUnsubscribe('audit:*');
  assert.equal(await client.publish('orders', 'late'), 0, 'PUBLISH after UNSUBSCRIBE');
  await subscriber.quit();
  results.pubsub = heard.slice(-3);

  await client.quit();
  assert.equal(client.isOpen, false, 'the connection after QUIT');
  for (const reason of skipped) console.log(`SKIPPED PART: ${reason}`);
  console.log(JSON.stringify(results));
}

main().catch((error) => {
  console.error(`FAIL: ${error.stack || error}`);
  process.exit(1);
});
