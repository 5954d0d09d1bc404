#!/usr/bin/python3
"""Smoke test of cqld with the DataStax Python driver (Debian python3-cassandra).

Usage: /usr/bin/python3 smoke.py [HOST [PORT]]   (or CQLD_HOST / CQLD_PORT)

For each configuration (protocol v4 and v5, with and without LZ4) it connects,
creates a keyspace with a unique name, creates the seeds' user_events table,
writes rows out of order with simple and prepared statements, reads them back
in clustering order, pages with fetch_size=2, checks the driver's schema
metadata, checks that an invalid restriction is rejected with Cassandra's
message, and drops the keyspace.

The last line printed is "python driver: N passed, M failed"; the exit status
is non-zero when anything failed.
"""

import datetime
import logging
import os
import sys
import time
import traceback
import uuid

try:
    from cassandra import InvalidRequest, ProtocolVersion
    from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT
    from cassandra.policies import RoundRobinPolicy
    from cassandra.query import SimpleStatement, BatchStatement, BatchType
except ImportError as exc:  # pragma: no cover - environment problem
    print("cannot import the cassandra driver (apt-get install python3-cassandra): %s" % exc)
    print("python driver: 0 passed, 1 failed")
    sys.exit(1)

HOST = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CQLD_HOST", "127.0.0.1")
PORT = int(sys.argv[2] if len(sys.argv) > 2 else os.environ.get("CQLD_PORT", "9042"))

TABLE_DDL = (
    "CREATE TABLE user_events (user_id UUID, event_time TIMESTAMP, event_type TEXT, data TEXT, "
    "PRIMARY KEY ((user_id), event_time, event_type)) "
    "WITH CLUSTERING ORDER BY (event_time DESC, event_type ASC)"
)
INVALID_QUERY = "SELECT * FROM user_events WHERE user_id = ? AND event_type = ?"
INVALID_MESSAGE = ('PRIMARY KEY column "event_type" cannot be restricted as preceding column '
                   '"event_time" is not restricted')

# (protocol version, compression) pairs; compression False disables it.
CONFIGS = [
    (ProtocolVersion.V4, False),
    (ProtocolVersion.V4, "lz4"),
    (ProtocolVersion.V5, False),
    (ProtocolVersion.V5, "lz4"),
]

passed = 0
failed = 0


class Abort(Exception):
    """A failed step that later steps of the same configuration depend on."""


def check(name, fn, fatal=False):
    """Runs one named check; fn raises (AssertionError or anything) on failure."""
    global passed, failed
    start = time.monotonic()
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - report every failure
        failed += 1
        print("FAIL %s (%.2fs): %s: %s" % (name, time.monotonic() - start, type(exc).__name__, exc))
        if not isinstance(exc, AssertionError):
            traceback.print_exc(limit=4, file=sys.stdout)
        if fatal:
            raise Abort(name)
        return False
    passed += 1
    print("ok   %s (%.2fs)" % (name, time.monotonic() - start))
    return True


def expect_equal(got, want, what):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def ts(minute, second=0, ms=0):
    # Naive datetimes are UTC for the driver; keep millisecond precision.
    return datetime.datetime(2024, 3, 1, 12, minute, second, ms * 1000)


def run_config(proto, compression):
    label = "v%d%s" % (proto, "+" + compression if compression else "")
    ks = "smoke_py_%s_v%d%s" % (uuid.uuid4().hex[:12], proto, "_lz4" if compression else "")
    state = {}

    profile = ExecutionProfile(load_balancing_policy=RoundRobinPolicy(), request_timeout=20)
    cluster = Cluster(
        contact_points=[HOST],
        port=PORT,
        protocol_version=proto,
        compression=compression,
        connect_timeout=10,
        control_connection_timeout=10,
        execution_profiles={EXEC_PROFILE_DEFAULT: profile},
    )
    try:
        def connect():
            state["session"] = cluster.connect()
            expect_equal(cluster.protocol_version, proto, "negotiated protocol version")
            conn = cluster.control_connection._connection
            want = compression if compression else None
            expect_equal(getattr(conn, "_compression_type", None), want, "control connection compression")
            row = state["session"].execute("SELECT cluster_name, release_version FROM system.local WHERE key='local'").one()
            assert row is not None and row.release_version, "system.local has no release_version: %r" % (row,)
        check("%s connect" % label, connect, fatal=True)
        session = state["session"]

        def create_keyspace():
            session.execute(
                "CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}" % ks)
            session.set_keyspace(ks)  # USE
            session.execute(TABLE_DDL)
        check("%s create keyspace and table" % label, create_keyspace, fatal=True)

        u1 = uuid.uuid4()
        u2 = uuid.uuid4()
        # (event_time, event_type, data), inserted deliberately out of order.
        simple_rows = [
            (ts(3), "click", "s-3-click"),
            (ts(1), "view", "s-1-view"),
            (ts(5, 30, 250), "purchase", "s-5-purchase"),
        ]
        prepared_rows = [
            (ts(3), "add_to_cart", "p-3-add"),   # same event_time as a simple row
            (ts(0, 59, 999), "login", "p-0-login"),
            (ts(4), "view", "p-4-view"),
            (ts(2), "scroll", "p-2-scroll"),
        ]

        def insert_rows():
            # Literal values in the query string.
            session.execute(
                "INSERT INTO user_events (user_id, event_time, event_type, data) "
                "VALUES (%s, '2024-03-01 12:03:00+0000', 'click', 's-3-click')" % u1)
            # Client-side interpolated values (still a simple QUERY message).
            session.execute(
                "INSERT INTO user_events (user_id, event_time, event_type, data) VALUES (%s, %s, %s, %s)",
                (u1,) + simple_rows[1])
            session.execute(
                SimpleStatement("INSERT INTO user_events (user_id, event_time, event_type, data) "
                                "VALUES (%s, %s, %s, %s)"),
                (u1,) + simple_rows[2])
            ins = session.prepare(
                "INSERT INTO user_events (user_id, event_time, event_type, data) VALUES (?, ?, ?, ?)")
            for r in prepared_rows:
                session.execute(ins, (u1,) + r)
            # Another partition, through a batch of prepared statements.
            batch = BatchStatement(batch_type=BatchType.UNLOGGED)
            for i in range(3):
                batch.add(ins, (u2, ts(10 + i), "other", "u2-%d" % i))
            session.execute(batch)
        check("%s insert out of order (simple, prepared, batch)" % label, insert_rows, fatal=True)

        expected = sorted(simple_rows + prepared_rows, key=lambda r: r[1])
        expected = sorted(expected, key=lambda r: r[0], reverse=True)  # stable: event_type ASC within a time
        expected_keys = [(r[0], r[1]) for r in expected]

        def read_back():
            rows = list(session.execute(
                "SELECT user_id, event_time, event_type, data FROM user_events WHERE user_id = %s", (u1,)))
            expect_equal([(r.event_time, r.event_type) for r in rows], expected_keys, "row order")
            expect_equal([r.data for r in rows], [r[2] for r in expected], "data column")
            assert all(r.user_id == u1 for r in rows), "wrong user_id in result"
            sel = session.prepare("SELECT * FROM user_events WHERE user_id = ?")
            rows = list(session.execute(sel, (u1,)))
            expect_equal([(r.event_time, r.event_type, r.data) for r in rows], expected, "prepared select")
            rows = list(session.execute(sel, (u2,)))
            expect_equal([r.data for r in rows], ["u2-2", "u2-1", "u2-0"], "second partition")
        check("%s read back in event_time DESC order" % label, read_back)

        def clustering_restrictions():
            sel = session.prepare(
                "SELECT event_type, data FROM user_events WHERE user_id = ? AND event_time = ?")
            rows = list(session.execute(sel, (u1, ts(3))))
            expect_equal([r.event_type for r in rows], ["add_to_cart", "click"], "event_time = ts(3)")
            rng = session.prepare(
                "SELECT event_time, event_type FROM user_events WHERE user_id = ? "
                "AND event_time >= ? AND event_time < ?")
            rows = list(session.execute(rng, (u1, ts(1), ts(4))))
            want = [k for k in expected_keys if ts(1) <= k[0] < ts(4)]
            expect_equal([(r.event_time, r.event_type) for r in rows], want, "event_time range")
            rows = list(session.execute(
                "SELECT event_time FROM user_events WHERE user_id = %s ORDER BY event_time ASC LIMIT 3", (u1,)))
            expect_equal([r.event_time for r in rows], sorted(k[0] for k in expected_keys)[:3],
                         "ORDER BY event_time ASC LIMIT 3")
        check("%s clustering equality, range, ORDER BY, LIMIT" % label, clustering_restrictions)

        def paging():
            for prepared in (False, True):
                if prepared:
                    stmt = session.prepare("SELECT event_time, event_type FROM user_events WHERE user_id = ?")
                    stmt.fetch_size = 2
                else:
                    stmt = SimpleStatement(
                        "SELECT event_time, event_type FROM user_events WHERE user_id = %s", fetch_size=2)
                rs = session.execute(stmt, (u1,))
                pages = [[(r.event_time, r.event_type) for r in rs.current_rows]]
                while rs.has_more_pages:
                    rs.fetch_next_page()
                    pages.append([(r.event_time, r.event_type) for r in rs.current_rows])
                    assert len(pages) < 20, "paging does not end"
                flat = [k for p in pages for k in p]
                expect_equal(flat, expected_keys, "paged rows (prepared=%s)" % prepared)
                assert all(len(p) <= 2 for p in pages), "page larger than fetch_size: %r" % pages
                assert len(pages) >= 4, "expected at least 4 pages of 2 rows, got %d" % len(pages)
                # Iterating a ResultSet fetches the remaining pages transparently.
                rs = session.execute(stmt, (u1,))
                expect_equal([(r.event_time, r.event_type) for r in rs], expected_keys,
                             "auto-paged rows (prepared=%s)" % prepared)
        check("%s paging with fetch_size=2" % label, paging)

        def metadata():
            # The driver refreshes its metadata after each DDL response.
            kmeta = cluster.metadata.keyspaces.get(ks)
            assert kmeta is not None, "keyspace %s missing from driver metadata" % ks
            expect_equal(kmeta.replication_strategy.name, "SimpleStrategy", "replication strategy")
            tmeta = kmeta.tables.get("user_events")
            assert tmeta is not None, "table user_events missing from driver metadata"
            expect_equal([c.name for c in tmeta.partition_key], ["user_id"], "partition key")
            expect_equal([c.name for c in tmeta.clustering_key], ["event_time", "event_type"], "clustering key")
            expect_equal([c.is_reversed for c in tmeta.clustering_key], [True, False], "clustering order")
            expect_equal({n: c.cql_type for n, c in tmeta.columns.items()},
                         {"user_id": "uuid", "event_time": "timestamp", "event_type": "text", "data": "text"},
                         "column types")
            cql = tmeta.export_as_string()
            assert "CLUSTERING ORDER BY (event_time DESC, event_type ASC)" in cql, cql
            assert "PRIMARY KEY (user_id, event_time, event_type)" in cql, cql
        check("%s driver metadata sees keyspace and table" % label, metadata)

        def scalar_types():
            session.execute(
                "CREATE TABLE typed (id int, k int, t text, i int, bi bigint, u uuid, tu timeuuid, "
                "ts timestamp, b boolean, d double, bl blob, PRIMARY KEY (id, k))")
            u = uuid.uuid4()
            tu = uuid.uuid1()
            when = datetime.datetime(2023, 12, 31, 23, 59, 58, 123000)
            ins = session.prepare(
                "INSERT INTO typed (id, k, t, i, bi, u, tu, ts, b, d, bl) VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            want1 = (1, u"h\u00e9llo \u2603 'quoted'", -42, 2 ** 40 + 7, u, tu, when, True, 3.5, b"\x00\x01\xff")
            session.execute(ins, want1)
            session.execute(
                "INSERT INTO typed (id, k, t, i, bi, u, tu, ts, b, d, bl) VALUES (2, 0, 'it''s', 2147483647, "
                "-9223372036854775808, 123e4567-e89b-12d3-a456-426614174000, "
                "d2177dd0-eaa2-11de-a572-001b779c76e3, '2024-02-29T10:00:00.5Z', false, -0.25, 0xcafe)")
            session.execute("INSERT INTO typed (id, k) VALUES (3, 0)")
            sel = session.prepare("SELECT id, t, i, bi, u, tu, ts, b, d, bl FROM typed WHERE id = ? AND k = 0")
            expect_equal(tuple(session.execute(sel, (1,)).one()), want1, "prepared round trip")
            want2 = (2, "it's", 2147483647, -9223372036854775808, uuid.UUID("123e4567-e89b-12d3-a456-426614174000"),
                     uuid.UUID("d2177dd0-eaa2-11de-a572-001b779c76e3"),
                     datetime.datetime(2024, 2, 29, 10, 0, 0, 500000), False, -0.25, b"\xca\xfe")
            expect_equal(tuple(session.execute("SELECT id, t, i, bi, u, tu, ts, b, d, bl FROM typed WHERE id = 2").one()),
                         want2, "literal round trip")
            expect_equal(tuple(session.execute(sel, (3,)).one()), (3,) + (None,) * 9, "unset columns are null")
        check("%s scalar types round trip" % label, scalar_types)

        def delete_row():
            session.execute(
                "DELETE FROM user_events WHERE user_id = %s AND event_time = %s AND event_type = %s",
                (u1, ts(3), "click"))
            rows = list(session.execute("SELECT event_time, event_type FROM user_events WHERE user_id = %s", (u1,)))
            want = [k for k in expected_keys if k != (ts(3), "click")]
            expect_equal([(r.event_time, r.event_type) for r in rows], want, "rows after DELETE")
            rows = list(session.execute("SELECT * FROM typed WHERE id = 3"))
            session.execute(session.prepare("DELETE FROM typed WHERE id = ? AND k = ?"), (3, 0))
            expect_equal(len(rows), 1, "typed row 3 before DELETE")
            expect_equal(list(session.execute("SELECT * FROM typed WHERE id = 3")), [], "typed row 3 after DELETE")
        check("%s delete rows" % label, delete_row)

        def no_clustering():
            session.execute("CREATE TABLE kv (id int PRIMARY KEY, v text)")
            session.execute("INSERT INTO kv (id, v) VALUES (1, 'one')")
            session.execute(session.prepare("INSERT INTO kv (id, v) VALUES (?, ?)"), (2, "two"))
            expect_equal([tuple(r) for r in session.execute("SELECT id, v FROM kv WHERE id = 1")], [(1, "one")],
                         "SELECT id, v FROM kv WHERE id = 1")
            expect_equal([tuple(r) for r in session.execute(session.prepare("SELECT id, v FROM kv WHERE id = ?"), (2,))],
                         [(2, "two")], "prepared SELECT id, v FROM kv WHERE id = ?")
            session.execute("DELETE FROM kv WHERE id = 1")
            expect_equal(list(session.execute("SELECT id, v FROM kv WHERE id = 1")), [], "kv row 1 after DELETE")
        check("%s table without clustering columns" % label, no_clustering)

        def invalid_query():
            def assert_invalid(fn, what):
                try:
                    fn()
                except InvalidRequest as exc:
                    assert INVALID_MESSAGE in str(exc), "%s: unexpected message: %s" % (what, exc)
                    return
                raise AssertionError("%s: no InvalidRequest raised" % what)
            # The driver logs a failed PREPARE at ERROR level: expected here.
            cluster_log = logging.getLogger("cassandra.cluster")
            level = cluster_log.level
            cluster_log.setLevel(logging.CRITICAL)
            try:
                assert_invalid(lambda: session.prepare(INVALID_QUERY), "prepare")
            finally:
                cluster_log.setLevel(level)
            assert_invalid(lambda: session.execute(
                "SELECT * FROM user_events WHERE user_id = %s AND event_type = %s", (u1, "click")),
                "simple statement")
        check("%s invalid restriction raises InvalidRequest" % label, invalid_query)

        def drop_keyspace():
            session.execute("DROP KEYSPACE %s" % ks)
            state["dropped"] = True
            assert ks not in cluster.metadata.keyspaces, "keyspace still in driver metadata after DROP"
        check("%s drop keyspace" % label, drop_keyspace)
    except Abort:
        pass
    finally:
        if "session" in state and not state.get("dropped"):
            try:
                state["session"].execute("DROP KEYSPACE IF EXISTS %s" % ks)
            except Exception as exc:  # noqa: BLE001
                print("cleanup: DROP KEYSPACE %s failed: %s" % (ks, exc))
        cluster.shutdown()


def main():
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    print("python driver %s against %s:%d" % (__import__("cassandra").__version__, HOST, PORT))
    start = time.monotonic()
    for proto, compression in CONFIGS:
        run_config(proto, compression)
    print("total %.1fs" % (time.monotonic() - start))
    print("python driver: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
