#!/usr/bin/python3
"""The DataStax Python driver against a cqld node configured with
PasswordAuthenticator, CassandraAuthorizer and materialized_views_enabled.

Usage: /usr/bin/python3 secure.py [HOST [PORT]]

It logs in as the default superuser (cassandra/cassandra) on protocol v4 and
v5, checks that bad credentials are refused, creates a role and grants it
permissions, logs in as that role and checks what it may and may not do,
then creates a secondary index and a materialized view (seed 004's
log_messages) and reads through both, checking the driver's metadata for
them.

The last line printed is "python-secure driver: N passed, M failed".
"""

import logging
import os
import sys
import time
import traceback
import uuid

try:
    from cassandra import ProtocolVersion, Unauthorized
    from cassandra.auth import PlainTextAuthProvider
    from cassandra.cluster import Cluster, NoHostAvailable
    from cassandra.policies import RoundRobinPolicy
    from cassandra.query import SimpleStatement
except ImportError as exc:  # pragma: no cover - environment problem
    print("cannot import the cassandra driver (apt-get install python3-cassandra): %s" % exc)
    print("python-secure driver: 0 passed, 1 failed")
    sys.exit(1)

HOST = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CQLD_HOST", "127.0.0.1")
PORT = int(sys.argv[2] if len(sys.argv) > 2 else os.environ.get("CQLD_PORT", "9042"))

passed = 0
failed = 0


def check(name, fn):
    global passed, failed
    try:
        fn()
    except Exception:  # noqa: BLE001
        failed += 1
        print("FAIL %s" % name)
        traceback.print_exc()
        return False
    passed += 1
    print("ok   %s" % name)
    return True


def connect(user, password, proto=ProtocolVersion.V4):
    cluster = Cluster([HOST], port=PORT, protocol_version=proto,
                      auth_provider=PlainTextAuthProvider(username=user, password=password),
                      load_balancing_policy=RoundRobinPolicy(), connect_timeout=10)
    return cluster, cluster.connect()


def main():
    logging.basicConfig(level=logging.CRITICAL)
    print("python driver %s against %s:%d (authentication on)" % (__import__("cassandra").__version__, HOST, PORT))
    start = time.monotonic()
    ks = "sec_%s" % uuid.uuid4().hex[:8]
    role = "reader_%s" % uuid.uuid4().hex[:6]

    for proto in (ProtocolVersion.V4, ProtocolVersion.V5):
        def login(proto=proto):
            cluster, session = connect("cassandra", "cassandra", proto)
            try:
                row = session.execute("SELECT release_version FROM system.local").one()
                assert row.release_version.startswith("5."), row
            finally:
                cluster.shutdown()
        check("v%d login as the default superuser" % proto, login)

    def bad_password():
        try:
            cluster, _ = connect("cassandra", "wrong")
        except NoHostAvailable as exc:
            text = str(exc)
            assert "Provided username cassandra and/or password are incorrect" in text, text
            return
        cluster.shutdown()
        raise AssertionError("connected with a wrong password")
    check("wrong password refused", bad_password)

    admin_cluster, admin = connect("cassandra", "cassandra")
    try:
        def setup():
            admin.execute("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}" % ks)
            admin.execute("""CREATE TABLE %s.log_messages (source_name text, message_time_day text,
                message_time timestamp, message_type text, source_type text, message_body text,
                PRIMARY KEY ((source_name, message_time_day), message_time, message_type))
                WITH CLUSTERING ORDER BY (message_time DESC)""" % ks)
            admin.execute("CREATE INDEX log_messages_sourcetype_idx ON %s.log_messages (source_type)" % ks)
            admin.execute("""CREATE MATERIALIZED VIEW %s.log_by_type AS SELECT * FROM %s.log_messages
                WHERE source_type IS NOT NULL AND source_name IS NOT NULL AND message_time_day IS NOT NULL
                AND message_time IS NOT NULL AND message_type IS NOT NULL
                PRIMARY KEY (source_type, source_name, message_time_day, message_time, message_type)""" % (ks, ks))
            ins = admin.prepare("INSERT INTO %s.log_messages (source_name, message_time_day, message_time, "
                                "message_type, source_type, message_body) VALUES (?, ?, ?, ?, ?, ?)" % ks)
            for i in range(12):
                admin.execute(ins, ("web%02d" % (i % 3), "2024-01-15", 1705312800000 + i * 1000,
                                    "INFO", ("nginx", "postgres")[i % 2], "m%d" % i))
        if not check("create keyspace, table, index and view as superuser", setup):
            return finish(start)

        def through_index():
            stmt = SimpleStatement("SELECT message_body FROM %s.log_messages WHERE source_type = 'nginx'" % ks, fetch_size=4)
            rows = list(admin.execute(stmt))
            assert len(rows) == 6, rows
        check("query through the secondary index, paged", through_index)

        def through_view():
            rows = list(admin.execute("SELECT message_body FROM %s.log_by_type WHERE source_type = 'postgres'" % ks))
            assert len(rows) == 6, rows
        check("query the materialized view", through_view)

        def metadata():
            admin_cluster.refresh_schema_metadata()
            kmeta = admin_cluster.metadata.keyspaces[ks]
            table = kmeta.tables["log_messages"]
            assert "log_messages_sourcetype_idx" in table.indexes, table.indexes
            assert "log_by_type" in kmeta.views, kmeta.views
            assert kmeta.views["log_by_type"].base_table_name == "log_messages"
        check("driver metadata lists the index and the view", metadata)

        def create_role():
            admin.execute("CREATE ROLE %s WITH PASSWORD = 'pw' AND LOGIN = true" % role)
            admin.execute("GRANT SELECT ON KEYSPACE %s TO %s" % (ks, role))
            rows = {r.role for r in admin.execute("LIST ROLES")}
            assert {"cassandra", role} <= rows, rows
        if not check("create a role and grant it SELECT", create_role):
            return finish(start)

        def as_role():
            cluster, session = connect(role, "pw")
            try:
                rows = list(session.execute("SELECT message_body FROM %s.log_messages WHERE source_type = 'nginx'" % ks))
                assert len(rows) == 6, rows
                try:
                    session.execute("INSERT INTO %s.log_messages (source_name, message_time_day, message_time, message_type) "
                                    "VALUES ('x', 'y', 0, 'z')" % ks)
                except Unauthorized as exc:
                    assert "has no MODIFY permission" in str(exc), exc
                else:
                    raise AssertionError("INSERT without MODIFY permission succeeded")
            finally:
                cluster.shutdown()
        check("a role reads what it was granted and cannot write", as_role)
    finally:
        try:
            admin.execute("DROP ROLE IF EXISTS %s" % role)
            admin.execute("DROP MATERIALIZED VIEW IF EXISTS %s.log_by_type" % ks)
            admin.execute("DROP KEYSPACE IF EXISTS %s" % ks)
        except Exception as exc:  # noqa: BLE001
            print("cleanup failed: %s" % exc)
        admin_cluster.shutdown()
    return finish(start)


def finish(start):
    print("total %.1fs" % (time.monotonic() - start))
    print("python-secure driver: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
