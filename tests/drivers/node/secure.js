'use strict';
// The DataStax Node.js driver against a cqld node configured with
// PasswordAuthenticator, CassandraAuthorizer and materialized_views_enabled.
//
// Usage: node secure.js [HOST [PORT]]
//
// Logs in as cassandra/cassandra, checks that a wrong password is refused,
// creates seed 004's log_messages with a secondary index and a materialized
// view, reads through both (paged), checks the driver's metadata, creates a
// role with SELECT only and checks it cannot write.
//
// The last line printed is "node-secure driver: N passed, M failed".

const assert = require('assert');
const crypto = require('crypto');

let cassandra;
try {
  cassandra = require('cassandra-driver');
} catch (err) {
  console.log(`cannot load cassandra-driver (run npm install in ${__dirname}): ${err.message}`);
  console.log('node-secure driver: 0 passed, 1 failed');
  process.exit(1);
}
const { Client, auth } = cassandra;

const HOST = process.argv[2] || process.env.CQLD_HOST || '127.0.0.1';
const PORT = parseInt(process.argv[3] || process.env.CQLD_PORT || '9042', 10);

let passed = 0;
let failed = 0;

async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
    return true;
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${err && err.name}: ${err && err.message}`);
    return false;
  }
}

function client(user, password) {
  return new Client({
    contactPoints: [`${HOST}:${PORT}`],
    localDataCenter: 'datacenter1',
    protocolOptions: { port: PORT, maxVersion: 4 },
    authProvider: new auth.PlainTextAuthProvider(user, password),
  });
}

async function main() {
  const ks = 'sec_' + crypto.randomBytes(4).toString('hex');
  const role = 'reader_' + crypto.randomBytes(3).toString('hex');
  const admin = client('cassandra', 'cassandra');
  if (!(await check('login as the default superuser', () => admin.connect()))) {
    return finish();
  }
  try {
    await check('wrong password refused', async () => {
      const bad = client('cassandra', 'wrong');
      try {
        await bad.connect();
      } catch (err) {
        assert.match(String(err.message) + JSON.stringify(err.innerErrors || {}), /Provided username cassandra and\/or password are incorrect/);
        return;
      } finally {
        await bad.shutdown();
      }
      assert.fail('connected with a wrong password');
    });
    const ok = await check('create keyspace, table, index and view', async () => {
      await admin.execute(`CREATE KEYSPACE ${ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`);
      await admin.execute(`CREATE TABLE ${ks}.log_messages (source_name text, message_time_day text,
        message_time timestamp, message_type text, source_type text, message_body text,
        PRIMARY KEY ((source_name, message_time_day), message_time, message_type))
        WITH CLUSTERING ORDER BY (message_time DESC)`);
      await admin.execute(`CREATE INDEX log_messages_sourcetype_idx ON ${ks}.log_messages (source_type)`);
      await admin.execute(`CREATE MATERIALIZED VIEW ${ks}.log_by_type AS SELECT * FROM ${ks}.log_messages
        WHERE source_type IS NOT NULL AND source_name IS NOT NULL AND message_time_day IS NOT NULL
        AND message_time IS NOT NULL AND message_type IS NOT NULL
        PRIMARY KEY (source_type, source_name, message_time_day, message_time, message_type)`);
      const ins = `INSERT INTO ${ks}.log_messages (source_name, message_time_day, message_time, message_type, source_type, message_body)
        VALUES (?, ?, ?, ?, ?, ?)`;
      for (let i = 0; i < 12; i++) {
        await admin.execute(ins, [`web${i % 3}`, '2024-01-15', new Date(1705312800000 + i * 1000), 'INFO',
          i % 2 ? 'postgres' : 'nginx', `m${i}`], { prepare: true });
      }
    });
    if (!ok) return;
    await check('query through the secondary index, paged', async () => {
      let n = 0;
      let pageState;
      do {
        const rs = await admin.execute(`SELECT message_body FROM ${ks}.log_messages WHERE source_type = ?`, ['nginx'],
          { prepare: true, fetchSize: 4, pageState });
        n += rs.rows.length;
        pageState = rs.pageState;
      } while (pageState);
      assert.strictEqual(n, 6);
    });
    await check('query the materialized view', async () => {
      const rs = await admin.execute(`SELECT message_body FROM ${ks}.log_by_type WHERE source_type = 'postgres'`);
      assert.strictEqual(rs.rows.length, 6);
    });
    await check('driver metadata lists the index and the view', async () => {
      const table = await admin.metadata.getTable(ks, 'log_messages');
      assert.ok(table.indexes.some((i) => i.name === 'log_messages_sourcetype_idx'), JSON.stringify(table.indexes));
      const view = await admin.metadata.getMaterializedView(ks, 'log_by_type');
      assert.ok(view, 'no view metadata');
      assert.strictEqual(view.tableName, 'log_messages');
    });
    await check('a role reads what it was granted and cannot write', async () => {
      await admin.execute(`CREATE ROLE ${role} WITH PASSWORD = 'pw' AND LOGIN = true`);
      await admin.execute(`GRANT SELECT ON KEYSPACE ${ks} TO ${role}`);
      const reader = client(role, 'pw');
      try {
        await reader.connect();
        const rs = await reader.execute(`SELECT message_body FROM ${ks}.log_messages WHERE source_type = 'nginx'`);
        assert.strictEqual(rs.rows.length, 6);
        await assert.rejects(
          reader.execute(`INSERT INTO ${ks}.log_messages (source_name, message_time_day, message_time, message_type) VALUES ('x', 'y', 0, 'z')`),
          /has no MODIFY permission/);
      } finally {
        await reader.shutdown();
      }
    });
  } finally {
    try {
      await admin.execute(`DROP ROLE IF EXISTS ${role}`);
      await admin.execute(`DROP MATERIALIZED VIEW IF EXISTS ${ks}.log_by_type`);
      await admin.execute(`DROP KEYSPACE IF EXISTS ${ks}`);
    } catch (err) {
      console.log(`cleanup failed: ${err.message}`);
    }
    await admin.shutdown();
  }
  return finish();
}

function finish() {
  console.log(`node-secure driver: ${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
}

main().catch((err) => {
  failed++;
  console.log(`FAIL unexpected: ${err && err.stack}`);
  finish();
});
