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
import decimal
import logging
import math
import os
import socket
import struct
import sys
import time
import traceback
import uuid
import warnings

try:
    import cassandra
    from cassandra import ConsistencyLevel, InvalidRequest, ProtocolVersion, Unavailable
    from cassandra.cluster import Cluster, ExecutionProfile, EXEC_PROFILE_DEFAULT, NoHostAvailable
    from cassandra.policies import RoundRobinPolicy
    from cassandra.query import SimpleStatement, BatchStatement, BatchType
    from cassandra.util import Date, Duration, Time
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


def same(a, b):
    """Equality of driver values that also tells NaN, -0.0 and decimal scales apart."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, decimal.Decimal) and isinstance(b, decimal.Decimal):
        return a.as_tuple() == b.as_tuple()
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if hasattr(a, "items") and hasattr(b, "items"):
        return same(sorted(a.items()), sorted(b.items()))
    if isinstance(a, (set, frozenset)) or type(a).__name__ == "SortedSet":
        return sorted(a) == sorted(b)
    return type(a) == type(b) and a == b


# Every CQL type: (column type, [(python value, CQL literal), ...]). Each
# value is inserted bound (prepared) and as a literal, and must read back
# as the Python value (same()).
EVERY_TYPE = [
    ("ascii", [("", "''"), ("it's", "'it''s'"), (None, "null")]),
    ("text", [("", "''"), (u"h\u00e9llo \u65e5\u672c \U0001f600", u"'h\u00e9llo \u65e5\u672c \U0001f600'")]),
    ("blob", [(b"", "0x"), (b"\x00\xca\xfe", "0x00cafe")]),
    ("boolean", [(True, "true"), (False, "false")]),
    ("tinyint", [(-128, "-128"), (127, "127")]),
    ("smallint", [(-32768, "-32768"), (32767, "32767")]),
    ("int", [(-2147483648, "-2147483648"), (2147483647, "2147483647"), (0, "0")]),
    ("bigint", [(-2 ** 63, str(-2 ** 63)), (2 ** 63 - 1, str(2 ** 63 - 1))]),
    ("varint", [(2 ** 130, str(2 ** 130)), (-2 ** 130 - 1, str(-2 ** 130 - 1)), (0, "0")]),
    ("decimal", [(decimal.Decimal("-1.50"), "-1.50"), (decimal.Decimal("1E+50"), "1E+50"),
                 (decimal.Decimal("123456789012345678901234567890.0987654321"),
                  "123456789012345678901234567890.0987654321"),
                 (decimal.Decimal("-1.5E-40"), "-1.5E-40")]),
    ("float", [(0.5, "0.5"), (-0.0, "-0.0"), (float("nan"), "NaN"), (float("inf"), "Infinity"),
               (float("-inf"), "-Infinity")]),
    ("double", [(1e308, "1e308"), (-0.0, "-0.0"), (float("nan"), "NaN"), (float("-inf"), "-Infinity"),
                (5e-324, "5e-324")]),
    ("date", [(Date(-2 ** 31), "0"), (Date(2 ** 31 - 1), "4294967295"), (Date(-1), "'1969-12-31'"),
              (Date(datetime.date(9999, 12, 31)), "'9999-12-31'")]),
    ("time", [(Time(0), "'00:00:00'"), (Time(86399999999999), "'23:59:59.999999999'"), (Time(1), "1")]),
    ("timestamp", [(datetime.datetime(1900, 1, 1, 0, 0, 0, 1000), "'1900-01-01 00:00:00.001+0000'"),
                   (datetime.datetime(1969, 12, 31, 23, 59, 59, 999000), "-1"),
                   (datetime.datetime(2300, 6, 1, 12, 0), "'2300-06-01T12:00:00Z'")]),
    ("uuid", [(uuid.UUID("00000000-0000-0000-0000-000000000000"), "00000000-0000-0000-0000-000000000000"),
              (uuid.UUID("550e8400-e29b-41d4-a716-446655440000"), "550e8400-e29b-41d4-a716-446655440000")]),
    ("timeuuid", [(uuid.UUID("d2177dd0-eaa2-11de-a572-001b779c76e3"), "d2177dd0-eaa2-11de-a572-001b779c76e3")]),
    ("inet", [("127.0.0.1", "'127.0.0.1'"), ("::1", "'::1'"),
              ("2001:db8::ff00:42:8329", "'2001:db8:0::ff00:42:8329'")]),
    ("duration", [(Duration(14, 3, 3723000000007), "1y2mo3d1h2m3s7ns"), (Duration(-1, -2, -3), "-1mo2d3ns"),
                  (Duration(0, 0, 0), "P0D"), (Duration(2, 0, 0), "P0000-02-00T00:00:00")]),
    ("list<int>", [([3, 1, 3], "[3, 1, 3]"), (None, "[]")]),
    ("set<text>", [({"b", "", "a'"}, "{'b', '', 'a'''}")]),
    ("map<text, double>", [({"z": -0.5, "a": 1e300}, "{'z': -0.5, 'a': 1e300}")]),
    ("frozen<list<frozen<map<int, frozen<set<text>>>>>>",
     [([{2: {"x", "y"}, 1: set()}, {}], "[{2: {'x', 'y'}, 1: {}}, {}]")]),
    ("tuple<int, text, double>", [((1, "a", 2.5), "(1, 'a', 2.5)"), ((None, "", None), "(null, '', null)")]),
    # python3-cassandra 3.25 predates vector support: it sends and receives
    # the custom type's serialized bytes.
    ("vector<float, 3>", [(struct.pack(">3f", 1.0, -0.5, 3.25), "[1.0, -0.5, 3.25]")]),
]

# Orderable types with distinct literals listed in Cassandra's order.
ORDERED = [
    ("int", ["-2147483648", "-1", "0", "7", "2147483647"]),
    ("bigint", [str(-2 ** 63), "-5", "0", str(2 ** 63 - 1)]),
    ("varint", [str(-2 ** 130), "-1", "0", "255", str(2 ** 130)]),
    # Scales as written: Cassandra returns the bytes a clustering was written with.
    ("decimal", ["-1E+50", "-1.50", "-1.5E-40", "0.00", "0.000001", "1000.0"]),
    ("double", ["-Infinity", "-1e300", "-0.0", "0.0", "5e-324", "1.5", "Infinity", "NaN"]),
    ("float", ["-Infinity", "-2.5", "-0.0", "0.0", "1.5", "Infinity", "NaN"]),
    ("text", ["''", "'A'", "'a'", "'ab'", "'b'", u"'\u00e9'", u"'\U0001f600'"]),
    ("ascii", ["''", "'A'", "'a'", "'ab'", "'b'"]),
    ("blob", ["0x", "0x00", "0x0000", "0x01", "0xff"]),
    ("boolean", ["false", "true"]),
    ("date", ["0", "'1969-12-31'", "'1970-01-01'", "'9999-12-31'"]),
    ("time", ["'00:00:00'", "'00:00:00.000000001'", "'23:59:59.999999999'"]),
    ("timestamp", ["'1900-01-01'", "-1", "0", "'2300-01-01'"]),
    # Unsigned bytes: a 4-byte address sorts before a 16-byte one with the same prefix.
    ("inet", ["'0.0.0.0'", "'::'", "'::1'", "'ffff::'", "'255.255.255.255'"]),
    ("timeuuid", ["00000000-0000-1000-8080-808080808080", "d2177dd0-eaa2-11de-a572-001b779c76e3",
                  "d2177dd0-eaa2-11de-a572-001b779c76e4", "ffffffff-ffff-1fff-bf7f-7f7f7f7f7f7f"]),
    ("uuid", ["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-0fff-ffff-ffffffffffff",
              "00000000-0000-1000-0000-000000000000", "550e8400-e29b-41d4-a716-446655440000"]),
    ("frozen<list<int>>", ["[]", "[-1]", "[0]", "[0, 1]", "[1]"]),
    ("frozen<map<int, text>>", ["{}", "{0: 'b'}", "{1: ''}", "{1: '', 2: ''}"]),
    ("tuple<int, text>", ["(-1, 'z')", "(0, '')", "(0, 'a')", "(1, '')"]),
]


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

        def every_type():
            session.execute("CREATE TYPE addr (street text, zip int)")
            cols = ["c%d %s" % (i, t) for i, (t, _) in enumerate(EVERY_TYPE)]
            session.execute("CREATE TABLE every (k int PRIMARY KEY, u frozen<addr>, %s)" % ", ".join(cols))
            session.execute("CREATE TABLE cnt (k int PRIMARY KEY, c counter)")
            k = 0
            for i, (typ, values) in enumerate(EVERY_TYPE):
                ins = session.prepare("INSERT INTO every (k, c%d) VALUES (?, ?)" % i)
                sel = session.prepare("SELECT c%d FROM every WHERE k = ?" % i)
                for value, literal in values:
                    want = value
                    if typ.startswith(("list", "set", "map")) and not value:
                        want = None  # an empty non-frozen collection is null
                    k += 1
                    session.execute(ins, (k, value))
                    got = session.execute(sel, (k,)).one()[0]
                    assert same(got, want), "%s bound %r reads back as %r" % (typ, value, got)
                    k += 1
                    session.execute("INSERT INTO every (k, c%d) VALUES (%d, %s)" % (i, k, literal))
                    got = session.execute(sel, (k,)).one()[0]
                    assert same(got, want), "%s literal %s reads back as %r, want %r" % (typ, literal, got, want)
            # A UDT with a null field, bound (an unregistered UDT binds as a
            # tuple of its fields) and as a literal with a missing field.
            session.execute(session.prepare("INSERT INTO every (k, u) VALUES (?, ?)"), (-1, (None, 12345)))
            session.execute("INSERT INTO every (k, u) VALUES (-2, {street: 'Main St'})")
            got = [session.execute("SELECT u FROM every WHERE k = %d" % kk).one()[0] for kk in (-1, -2)]
            expect_equal([(g.street, g.zip) for g in got], [(None, 12345), ("Main St", None)], "UDT values")
            # Counters.
            session.execute(session.prepare("UPDATE cnt SET c = c + ? WHERE k = 1"), (2 ** 63 - 1,))
            session.execute("UPDATE cnt SET c = c - 9223372036854775807 WHERE k = 1")
            session.execute("UPDATE cnt SET c = c + -5 WHERE k = 1")
            expect_equal(session.execute("SELECT c FROM cnt WHERE k = 1").one()[0], -5, "counter")
        check("%s every type round trip (bound and literal)" % label, every_type)

        def clustering_order():
            for i, (typ, literals) in enumerate(ORDERED):
                table = "ord%d" % i
                session.execute("CREATE TABLE %s (k int, a %s, d %s, PRIMARY KEY (k, a, d)) "
                                "WITH CLUSTERING ORDER BY (a ASC, d DESC)" % (table, typ, typ))
                # Partition 0 varies a (ASC), partition 1 varies d (DESC);
                # inserted in reverse order.
                for lit in reversed(literals):
                    session.execute("INSERT INTO %s (k, a, d) VALUES (0, %s, %s)" % (table, lit, literals[0]))
                    session.execute("INSERT INTO %s (k, a, d) VALUES (1, %s, %s)" % (table, literals[0], lit))
                want = []
                for lit in literals:
                    session.execute("INSERT INTO %s (k, a, d) VALUES (2, %s, %s)" % (table, lit, lit))
                    want.append(session.execute(
                        "SELECT a FROM %s WHERE k = 2 AND a = %s AND d = %s" % (table, lit, lit)).one()[0])
                asc = [r[0] for r in session.execute("SELECT a FROM %s WHERE k = 0" % table)]
                desc = [r[0] for r in session.execute("SELECT d FROM %s WHERE k = 1" % table)]
                assert same(asc, want), "%s ASC: got %r, want %r" % (typ, asc, want)
                assert same(desc, list(reversed(want))), "%s DESC: got %r" % (typ, desc)
        check("%s clustering order of every orderable type, ASC and DESC" % label, clustering_order)

        def written_forms():
            # 1.5 and 1.50 are one row and one set element, read back as written.
            session.execute("CREATE TABLE wf (k int, c decimal, s set<decimal>, m map<decimal, int>, "
                            "PRIMARY KEY (k, c))")
            session.execute("INSERT INTO wf (k, c, s, m) VALUES (0, 1.50, {2.0, 3.000}, {1E+2: 1})")
            session.execute("UPDATE wf SET s = s + {4.10} WHERE k = 0 AND c = 1.5")
            rows = list(session.execute("SELECT c, s, m FROM wf WHERE k = 0"))
            expect_equal(len(rows), 1, "rows")
            expect_equal(str(rows[0].c), "1.50", "clustering")
            expect_equal(sorted(str(x) for x in rows[0].s), ["2.0", "3.000", "4.10"], "set")
            expect_equal([str(x) for x in rows[0].m], ["1E+2"], "map keys")
        check("%s decimal clustering values and set elements read back as written" % label, written_forms)

        def bad_values():
            session.execute("CREATE TABLE bad (k int PRIMARY KEY, i int, d date, l list<int>)")
            for q, msg in [
                ("INSERT INTO bad (k, i) VALUES (1, 'x')", 'Invalid STRING constant (x) for "i" of type int'),
                ("INSERT INTO bad (k, i) VALUES (1, 2147483648)", "Unable to make int from '2147483648'"),
                ("INSERT INTO bad (k, d) VALUES (1, '2024-02-30')",
                 "Unable to coerce '2024-02-30' to a formatted date (long)"),
                ("INSERT INTO bad (k, l) VALUES (1, [1, 'a'])", "Invalid list literal for l: value 'a' is not of type int"),
            ]:
                try:
                    session.execute(q)
                except InvalidRequest as exc:
                    assert msg in str(exc), "%s: unexpected message %s" % (q, exc)
                else:
                    raise AssertionError("%s: no InvalidRequest" % q)
            expect_equal(list(session.execute("SELECT * FROM bad")), [], "rows stored by rejected statements")
        check("%s malformed literals are InvalidRequest and store nothing" % label, bad_values)

        def unavailable():
            # A keyspace of replication factor 3 on one node: QUORUM
            # needs 2 live replicas. The default retry policy tries the
            # next host once; there is none.
            rf3 = ks + "_rf3"
            session.execute("CREATE KEYSPACE %s WITH replication = "
                            "{'class': 'SimpleStrategy', 'replication_factor': 3}" % rf3)
            try:
                session.execute("CREATE TABLE %s.t (k int PRIMARY KEY, v int)" % rf3)
                q = SimpleStatement("INSERT INTO %s.t (k, v) VALUES (1, 1)" % rf3, consistency_level=ConsistencyLevel.QUORUM)
                try:
                    session.execute(q)
                except NoHostAvailable as exc:
                    errs = list(exc.errors.values())
                    assert len(errs) == 1 and isinstance(errs[0], Unavailable), "errors: %r" % exc.errors
                    e = errs[0]
                    expect_equal((e.consistency, e.required_replicas, e.alive_replicas),
                                 (ConsistencyLevel.QUORUM, 2, 1), "Unavailable fields")
                    assert "Cannot achieve consistency level QUORUM" in str(e), str(e)
                else:
                    raise AssertionError("INSERT at QUORUM with one of three replicas: no error")
                q = SimpleStatement("SELECT * FROM %s.t" % rf3, consistency_level=ConsistencyLevel.ONE)
                expect_equal(list(session.execute(q)), [], "rows written by the refused INSERT")
            finally:
                session.execute("DROP KEYSPACE IF EXISTS %s" % rf3)
        check("%s QUORUM on a keyspace of three replicas is Unavailable" % label, unavailable)

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

        def get_trace(rs):
            # The driver's own ResultSet indexing in get_query_trace warns.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                return rs.get_query_trace(max_wait_sec=5)

        def query_trace():
            # ResultSet.get_query_trace reads system_traces as cqlsh's
            # TRACING ON does; the trace is complete once it has a duration.
            rs = session.execute("SELECT id, v FROM kv WHERE id = 2", trace=True)
            trace = get_trace(rs)
            expect_equal(trace.request_type, "Execute CQL3 query", "trace request")
            assert trace.duration is not None and trace.started_at is not None, "incomplete trace %r" % (trace,)
            expect_equal(str(trace.coordinator), socket.gethostbyname(HOST), "trace coordinator")
            expect_equal(trace.parameters.get("query"), "SELECT id, v FROM kv WHERE id = 2", "trace query")
            acts = [e.description for e in trace.events]
            assert "Parsing SELECT id, v FROM kv WHERE id = 2" in acts, "trace events %r" % (acts,)
            assert any(a.startswith("Read 1 live rows") for a in acts), "trace events %r" % (acts,)
            ins = session.prepare("INSERT INTO kv (id, v) VALUES (?, ?)")
            rs = session.execute(ins, (3, "three"), trace=True)
            trace = get_trace(rs)
            expect_equal(trace.request_type, "Execute CQL3 prepared query", "prepared trace request")
            expect_equal(trace.parameters.get("bound_var_1_v"), "'three'", "prepared trace bound value")
        check("%s query trace" % label, query_trace)

        def system_views():
            # Cassandra 5.0's virtual tables: this driver's own connections,
            # with the options its STARTUP sent, and the table metrics.
            rows = list(session.execute("SELECT driver_name, driver_version, protocol_version, username, connection_stage FROM system_views.clients"))
            assert rows, "no clients"
            for r in rows:
                expect_equal(r.driver_name, "DataStax Python Driver", "clients driver_name")
                expect_equal(r.driver_version, cassandra.__version__, "clients driver_version")
                expect_equal(r.username, "anonymous", "clients username")
                expect_equal(r.connection_stage, "ready", "clients connection_stage")
                expect_equal(r.protocol_version, int(proto), "clients protocol_version")
            row = session.execute("SELECT count FROM system_views.local_write_latency WHERE keyspace_name = %s AND table_name = 'kv'", (ks,)).one()
            assert row is not None and row.count > 0, "local_write_latency %r" % (row,)
            row = session.execute("SELECT value FROM system_views.settings WHERE name = 'cluster_name'").one()
            assert row is not None and row.value, "settings %r" % (row,)
        check("%s system_views" % label, system_views)

        def auto_snapshot():
            # auto_snapshot (true by default): TRUNCATE leaves a snapshot,
            # listed in system_views.snapshots.
            session.execute("CREATE TABLE IF NOT EXISTS snap (k int PRIMARY KEY, v int)")
            session.execute("INSERT INTO snap (k, v) VALUES (1, 1)")
            session.execute("TRUNCATE snap")
            rows = list(session.execute("SELECT name, created_at, expires_at, ephemeral, size_on_disk, true_size FROM system_views.snapshots WHERE keyspace_name = %s AND table_name = 'snap'", (ks,)))
            expect_equal(len(rows), 1, "snapshots of the truncated table")
            r = rows[0]
            assert r.name.startswith("truncated-") and r.name.endswith("-snap"), "snapshot name %r" % (r.name,)
            assert r.created_at is not None and r.expires_at is None and r.ephemeral is False, "snapshot row %r" % (r,)
            assert r.size_on_disk >= r.true_size > 0, "snapshot sizes %r" % (r,)
        check("%s auto_snapshot" % label, auto_snapshot)

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
