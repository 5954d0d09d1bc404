'use strict';
// Smoke test of cqld with the DataStax Node.js driver (npm cassandra-driver 4.x).
//
// Usage: node smoke.js [HOST [PORT]]   (or CQLD_HOST / CQLD_PORT; CQLD_DC, default datacenter1)
//
// For protocol v4 (maxVersion 4) and the driver's default negotiation (it starts
// at DSE_V2 and must be told to downgrade), it connects, creates a keyspace with a
// unique name, creates the seeds' user_events table, writes rows out of order with
// simple and prepared statements, reads them back in clustering order, pages with
// fetchSize 2, checks the driver's schema metadata, checks that an invalid
// restriction is rejected with Cassandra's message, and drops the keyspace.
//
// The last line printed is "node driver: N passed, M failed"; the exit status is
// non-zero when anything failed.

const assert = require('assert');
const crypto = require('crypto');

let cassandra;
try {
  cassandra = require('cassandra-driver');
} catch (err) {
  console.log(`cannot load cassandra-driver (run npm install in ${__dirname}): ${err.message}`);
  console.log('node driver: 0 passed, 1 failed');
  process.exit(1);
}
const { Client, types, errors } = cassandra;

const HOST = process.argv[2] || process.env.CQLD_HOST || '127.0.0.1';
const PORT = parseInt(process.argv[3] || process.env.CQLD_PORT || '9042', 10);
const DC = process.env.CQLD_DC || 'datacenter1';

const TABLE_DDL =
  'CREATE TABLE user_events (user_id UUID, event_time TIMESTAMP, event_type TEXT, data TEXT, ' +
  'PRIMARY KEY ((user_id), event_time, event_type)) ' +
  'WITH CLUSTERING ORDER BY (event_time DESC, event_type ASC)';
const INVALID_QUERY = 'SELECT * FROM user_events WHERE user_id = ? AND event_type = ?';
const INVALID_MESSAGE =
  'PRIMARY KEY column "event_type" cannot be restricted as preceding column "event_time" is not restricted';

const CONFIGS = [
  { label: 'v4', protocolOptions: { port: PORT, maxVersion: 4 }, wantVersion: 4 },
  { label: 'negotiated', protocolOptions: { port: PORT }, wantVersion: null },
];

let passed = 0;
let failed = 0;

class Abort extends Error {}

async function check(name, fn, fatal = false) {
  const start = process.hrtime.bigint();
  const secs = () => (Number(process.hrtime.bigint() - start) / 1e9).toFixed(2);
  try {
    await fn();
  } catch (err) {
    failed++;
    console.log(`FAIL ${name} (${secs()}s): ${err && err.name}: ${err && err.message}`);
    if (!(err instanceof assert.AssertionError) && err && err.stack) {
      console.log(err.stack.split('\n').slice(1, 5).join('\n'));
    }
    if (fatal) {
      throw new Abort(name);
    }
    return false;
  }
  passed++;
  console.log(`ok   ${name} (${secs()}s)`);
  return true;
}

function ts(minute, second = 0, ms = 0) {
  return new Date(Date.UTC(2024, 2, 1, 12, minute, second, ms));
}

const key = (time, type) => `${time.toISOString()}/${type}`;

async function runConfig(cfg) {
  const label = cfg.label;
  const ks = `smoke_node_${crypto.randomBytes(6).toString('hex')}_${label}`;
  const client = new Client({
    contactPoints: [`${HOST}:${PORT}`],
    localDataCenter: DC,
    protocolOptions: cfg.protocolOptions,
    socketOptions: { connectTimeout: 10000, readTimeout: 20000 },
    queryOptions: { consistency: types.consistencies.localOne },
  });
  let connected = false;
  let dropped = false;
  try {
    await check(`${label} connect`, async () => {
      await client.connect();
      connected = true;
      const version = client.controlConnection.protocolVersion;
      if (cfg.wantVersion !== null) {
        assert.strictEqual(version, cfg.wantVersion, 'negotiated protocol version');
      } else {
        // Default negotiation starts at DSE_V2 (0x42): the server must make it downgrade to v4.
        assert.strictEqual(version, types.protocolVersion.v4, `negotiated protocol version 0x${version.toString(16)}`);
      }
      const rs = await client.execute("SELECT cluster_name, release_version FROM system.local WHERE key='local'");
      assert.ok(rs.first() && rs.first().release_version, 'system.local has no release_version');
      const hosts = client.hosts.values();
      assert.strictEqual(hosts.length, 1, 'number of hosts in metadata');
      assert.strictEqual(hosts[0].datacenter, DC, 'host data center');
    }, true);

    await check(`${label} create keyspace and table`, async () => {
      await client.execute(
        `CREATE KEYSPACE ${ks} WITH replication = {'class': 'NetworkTopologyStrategy', '${DC}': 1}`);
      await client.execute(`USE ${ks}`);
      await client.execute(TABLE_DDL);
    }, true);

    const u1 = types.Uuid.random();
    const u2 = types.Uuid.random();
    // [event_time, event_type, data], inserted deliberately out of order.
    const simpleRows = [
      [ts(3), 'click', 's-3-click'],
      [ts(1), 'view', 's-1-view'],
      [ts(5, 30, 250), 'purchase', 's-5-purchase'],
    ];
    const preparedRows = [
      [ts(3), 'add_to_cart', 'p-3-add'], // same event_time as a simple row
      [ts(0, 59, 999), 'login', 'p-0-login'],
      [ts(4), 'view', 'p-4-view'],
      [ts(2), 'scroll', 'p-2-scroll'],
    ];
    const insert = 'INSERT INTO user_events (user_id, event_time, event_type, data) VALUES (?, ?, ?, ?)';

    await check(`${label} insert out of order (simple, prepared, batch)`, async () => {
      // Literal values in the query string.
      await client.execute('INSERT INTO user_events (user_id, event_time, event_type, data) ' +
        `VALUES (${u1}, '2024-03-01 12:03:00+0000', 'click', 's-3-click')`);
      // Bound values on an unprepared QUERY message (the driver guesses the types).
      for (const r of simpleRows.slice(1)) {
        await client.execute(insert, [u1, ...r], { prepare: false });
      }
      for (const r of preparedRows) {
        await client.execute(insert, [u1, ...r], { prepare: true });
      }
      // Another partition, through a batch of prepared statements.
      const queries = [0, 1, 2].map(i => ({ query: insert, params: [u2, ts(10 + i), 'other', `u2-${i}`] }));
      await client.batch(queries, { prepare: true, logged: false });
    }, true);

    const expected = simpleRows.concat(preparedRows)
      .sort((a, b) => (b[0] - a[0]) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    const expectedKeys = expected.map(r => key(r[0], r[1]));

    await check(`${label} read back in event_time DESC order`, async () => {
      let rs = await client.execute('SELECT user_id, event_time, event_type, data FROM user_events WHERE user_id = ?',
        [u1], { prepare: false });
      assert.deepStrictEqual(rs.rows.map(r => key(r.event_time, r.event_type)), expectedKeys, 'row order');
      assert.deepStrictEqual(rs.rows.map(r => r.data), expected.map(r => r[2]), 'data column');
      assert.ok(rs.rows.every(r => r.user_id.equals(u1)), 'wrong user_id in result');
      rs = await client.execute('SELECT * FROM user_events WHERE user_id = ?', [u1], { prepare: true });
      assert.deepStrictEqual(rs.rows.map(r => key(r.event_time, r.event_type)), expectedKeys, 'prepared select');
      assert.deepStrictEqual(rs.columns.map(c => c.name).sort(), ['data', 'event_time', 'event_type', 'user_id']);
      rs = await client.execute('SELECT data FROM user_events WHERE user_id = ?', [u2], { prepare: true });
      assert.deepStrictEqual(rs.rows.map(r => r.data), ['u2-2', 'u2-1', 'u2-0'], 'second partition');
    });

    await check(`${label} clustering equality, range, ORDER BY, LIMIT`, async () => {
      let rs = await client.execute(
        'SELECT event_type, data FROM user_events WHERE user_id = ? AND event_time = ?', [u1, ts(3)], { prepare: true });
      assert.deepStrictEqual(rs.rows.map(r => r.event_type), ['add_to_cart', 'click'], 'event_time = ts(3)');
      rs = await client.execute('SELECT event_time, event_type FROM user_events WHERE user_id = ? ' +
        'AND event_time >= ? AND event_time < ?', [u1, ts(1), ts(4)], { prepare: true });
      const want = expected.filter(r => r[0] >= ts(1) && r[0] < ts(4)).map(r => key(r[0], r[1]));
      assert.deepStrictEqual(rs.rows.map(r => key(r.event_time, r.event_type)), want, 'event_time range');
      rs = await client.execute(
        'SELECT event_time FROM user_events WHERE user_id = ? ORDER BY event_time ASC LIMIT 3', [u1], { prepare: true });
      const times = expected.map(r => r[0].getTime()).sort((a, b) => a - b).slice(0, 3);
      assert.deepStrictEqual(rs.rows.map(r => r.event_time.getTime()), times, 'ORDER BY event_time ASC LIMIT 3');
    });

    await check(`${label} paging with fetchSize 2`, async () => {
      for (const prepare of [false, true]) {
        const q = 'SELECT event_time, event_type FROM user_events WHERE user_id = ?';
        const pages = [];
        let pageState;
        do {
          const rs = await client.execute(q, [u1], { prepare, fetchSize: 2, pageState });
          pages.push(rs.rows.map(r => key(r.event_time, r.event_type)));
          pageState = rs.pageState;
          assert.ok(pages.length < 20, 'paging does not end');
        } while (pageState);
        assert.deepStrictEqual(pages.flat(), expectedKeys, `paged rows (prepare=${prepare})`);
        assert.ok(pages.every(p => p.length <= 2), `page larger than fetchSize: ${JSON.stringify(pages)}`);
        assert.ok(pages.length >= 4, `expected at least 4 pages of 2 rows, got ${pages.length}`);
        // Async iteration fetches the following pages itself.
        const rs = await client.execute(q, [u1], { prepare, fetchSize: 2 });
        const all = [];
        for await (const r of rs) {
          all.push(key(r.event_time, r.event_type));
        }
        assert.deepStrictEqual(all, expectedKeys, `async-iterated rows (prepare=${prepare})`);
      }
    });

    await check(`${label} driver metadata sees keyspace and table`, async () => {
      const kmeta = client.metadata.keyspaces[ks];
      assert.ok(kmeta, `keyspace ${ks} missing from driver metadata`);
      assert.ok(/NetworkTopologyStrategy/.test(kmeta.strategy), `strategy ${kmeta.strategy}`);
      const t = await client.metadata.getTable(ks, 'user_events');
      assert.ok(t, 'table user_events missing from driver metadata');
      assert.deepStrictEqual(t.partitionKeys.map(c => c.name), ['user_id'], 'partition key');
      assert.deepStrictEqual(t.clusteringKeys.map(c => c.name), ['event_time', 'event_type'], 'clustering key');
      assert.deepStrictEqual(t.clusteringOrder, ['DESC', 'ASC'], 'clustering order');
      const colTypes = {};
      for (const c of t.columns) {
        // text and varchar are the same type; the driver maps the name 'text' to dataTypes.text.
        colTypes[c.name] = c.type.code === types.dataTypes.varchar ? types.dataTypes.text : c.type.code;
      }
      const dt = types.dataTypes;
      assert.deepStrictEqual(colTypes,
        { user_id: dt.uuid, event_time: dt.timestamp, event_type: dt.text, data: dt.text }, 'column types');
    });

    await check(`${label} scalar types round trip`, async () => {
      await client.execute('CREATE TABLE typed (id int, k int, t text, i int, bi bigint, u uuid, tu timeuuid, ' +
        'ts timestamp, b boolean, d double, bl blob, PRIMARY KEY (id, k))');
      const cols = 'id, t, i, bi, u, tu, ts, b, d, bl';
      const want1 = [1, "h\u00e9llo \u2603 'quoted'", -42, types.Long.fromString('1099511627783'), types.Uuid.random(),
        types.TimeUuid.now(), new Date(Date.UTC(2023, 11, 31, 23, 59, 58, 123)), true, 3.5, Buffer.from([0, 1, 255])];
      await client.execute('INSERT INTO typed (id, k, t, i, bi, u, tu, ts, b, d, bl) ' +
        'VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)', want1, { prepare: true });
      await client.execute('INSERT INTO typed (id, k, t, i, bi, u, tu, ts, b, d, bl) VALUES (2, 0, \'it\'\'s\', ' +
        '2147483647, -9223372036854775808, 123e4567-e89b-12d3-a456-426614174000, ' +
        "d2177dd0-eaa2-11de-a572-001b779c76e3, '2024-02-29T10:00:00.5Z', false, -0.25, 0xcafe)");
      await client.execute('INSERT INTO typed (id, k) VALUES (3, 0)');
      const sel = `SELECT ${cols} FROM typed WHERE id = ? AND k = 0`;
      const norm = row => cols.split(', ').map(c => {
        const v = row[c];
        if (v === null || v === undefined) return null;
        if (v instanceof Date) return v.toISOString();
        if (Buffer.isBuffer(v)) return v.toString('hex');
        return v.toString();
      });
      let rs = await client.execute(sel, [1], { prepare: true });
      assert.deepStrictEqual(norm(rs.first() || {}), norm(Object.fromEntries(cols.split(', ').map((c, i) => [c, want1[i]]))),
        'prepared round trip');
      rs = await client.execute(sel, [2], { prepare: true });
      assert.deepStrictEqual(norm(rs.first() || {}), ['2', "it's", '2147483647', '-9223372036854775808',
        '123e4567-e89b-12d3-a456-426614174000', 'd2177dd0-eaa2-11de-a572-001b779c76e3', '2024-02-29T10:00:00.500Z',
        'false', '-0.25', 'cafe'], 'literal round trip');
      rs = await client.execute(sel, [3], { prepare: true });
      assert.deepStrictEqual(norm(rs.first() || {}), ['3', null, null, null, null, null, null, null, null, null],
        'unset columns are null');
    });

    await check(`${label} decimal clustering values and set elements read back as written`, async () => {
      // 1.5 and 1.50 are one row and one set element; Cassandra returns the bytes as written.
      await client.execute('CREATE TABLE wf (k int, c decimal, s set<decimal>, PRIMARY KEY (k, c))');
      await client.execute('INSERT INTO wf (k, c, s) VALUES (0, ?, ?)',
        [types.BigDecimal.fromString('1.50'), [types.BigDecimal.fromString('2.0')]], { prepare: true });
      await client.execute('UPDATE wf SET s = s + {3.000} WHERE k = 0 AND c = 1.5');
      const rs = await client.execute('SELECT c, s FROM wf WHERE k = 0', [], { prepare: true });
      assert.strictEqual(rs.rows.length, 1, 'one row');
      assert.strictEqual(rs.first().c.toString(), '1.50', 'clustering as written');
      assert.deepStrictEqual(rs.first().s.map(x => x.toString()).sort(), ['2.0', '3.000'], 'set elements as written');
    });

    await check(`${label} delete rows`, async () => {
      await client.execute('DELETE FROM user_events WHERE user_id = ? AND event_time = ? AND event_type = ?',
        [u1, ts(3), 'click'], { prepare: true });
      const rs = await client.execute('SELECT event_time, event_type FROM user_events WHERE user_id = ?', [u1],
        { prepare: true });
      assert.deepStrictEqual(rs.rows.map(r => key(r.event_time, r.event_type)),
        expectedKeys.filter(k => k !== key(ts(3), 'click')), 'rows after DELETE');
    });

    await check(`${label} table without clustering columns`, async () => {
      await client.execute('CREATE TABLE kv (id int PRIMARY KEY, v text)');
      await client.execute("INSERT INTO kv (id, v) VALUES (1, 'one')");
      await client.execute('INSERT INTO kv (id, v) VALUES (?, ?)', [2, 'two'], { prepare: true });
      let rs = await client.execute('SELECT id, v FROM kv WHERE id = 1');
      assert.deepStrictEqual(rs.rows.map(r => [r.id, r.v]), [[1, 'one']], 'SELECT id, v FROM kv WHERE id = 1');
      rs = await client.execute('SELECT id, v FROM kv WHERE id = ?', [2], { prepare: true });
      assert.deepStrictEqual(rs.rows.map(r => [r.id, r.v]), [[2, 'two']], 'prepared SELECT id, v FROM kv WHERE id = ?');
    });

    await check(`${label} query trace`, async () => {
      // traceQuery sets the tracing flag; metadata.getTrace reads
      // system_traces until the session has its duration.
      const rs = await client.execute('SELECT id, v FROM kv WHERE id = ?', [2], { prepare: true, traceQuery: true });
      assert.ok(rs.info.traceId, 'no trace id in the response');
      const trace = await client.metadata.getTrace(rs.info.traceId);
      assert.strictEqual(trace.requestType, 'Execute CQL3 prepared query', 'trace request');
      assert.strictEqual(trace.parameters.bound_var_0_id, '2', 'trace bound value');
      assert.strictEqual(typeof trace.duration, 'number', 'trace duration');
      assert.ok(trace.events.some(e => e.activity.startsWith('Read 1 live rows')),
        `trace events ${JSON.stringify(trace.events.map(e => e.activity))}`);
    });

    await check(`${label} system_views`, async () => {
      // Cassandra 5.0's virtual tables: this driver's connections, with the
      // options its STARTUP sent, and the table metrics.
      const rs = await client.execute('SELECT driver_name, driver_version, protocol_version, username FROM system_views.clients');
      assert.ok(rs.rows.length > 0, 'no clients');
      const version = client.controlConnection.protocolVersion;
      for (const r of rs.rows) {
        assert.strictEqual(r.driver_name, 'Apache Cassandra Node.js Driver', 'clients driver_name');
        assert.ok(r.driver_version, 'clients driver_version');
        assert.strictEqual(r.protocol_version, version, 'clients protocol_version');
        assert.strictEqual(r.username, 'anonymous', 'clients username');
      }
      const lat = await client.execute('SELECT count FROM system_views.local_write_latency WHERE keyspace_name = ? AND table_name = ?', [ks, 'kv']);
      assert.ok(lat.rows.length === 1 && Number(lat.rows[0].count.toString()) > 0, `local_write_latency ${JSON.stringify(lat.rows)}`);
    });

    await check(`${label} invalid restriction rejected`, async () => {
      for (const prepare of [true, false]) {
        let err = null;
        try {
          await client.execute(INVALID_QUERY, [u1, 'click'], { prepare });
        } catch (e) {
          err = e;
        }
        assert.ok(err, `no error (prepare=${prepare})`);
        assert.ok(err instanceof errors.ResponseError, `not a ResponseError: ${err}`);
        assert.strictEqual(err.code, types.responseErrorCodes.invalid, `error code 0x${err.code.toString(16)}`);
        assert.ok(err.message.includes(INVALID_MESSAGE), `unexpected message: ${err.message}`);
      }
    });

    await check(`${label} drop keyspace`, async () => {
      await client.execute(`DROP KEYSPACE ${ks}`);
      dropped = true;
      assert.ok(!client.metadata.keyspaces[ks], 'keyspace still in driver metadata after DROP');
    });
  } catch (err) {
    if (!(err instanceof Abort)) {
      throw err;
    }
  } finally {
    if (connected && !dropped) {
      try {
        await client.execute(`DROP KEYSPACE IF EXISTS ${ks}`);
      } catch (err) {
        console.log(`cleanup: DROP KEYSPACE ${ks} failed: ${err.message}`);
      }
    }
    await client.shutdown();
  }
}

async function main() {
  const version = require('cassandra-driver/package.json').version;
  console.log(`node driver ${version} against ${HOST}:${PORT}`);
  const start = Date.now();
  for (const cfg of CONFIGS) {
    await runConfig(cfg);
  }
  console.log(`total ${((Date.now() - start) / 1000).toFixed(1)}s`);
}

main()
  .catch(err => {
    failed++;
    console.log(`FAIL unexpected error: ${err && err.stack}`);
  })
  .finally(() => {
    console.log(`node driver: ${passed} passed, ${failed} failed`);
    // The driver may keep timers alive; exit explicitly.
    process.exit(failed === 0 && passed > 0 ? 0 : 1);
  });
