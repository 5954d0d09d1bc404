package node

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/apache/cassandra-gocql-driver/v2/lz4"
	"github.com/cqld/cqld/internal/query"
	"github.com/cqld/cqld/internal/types"
)

type udtAddress struct {
	Street string `cql:"street"`
	City   string `cql:"city"`
	Zip    int    `cql:"zip"`
}

// TestDriverUDT round-trips frozen and non-frozen UDT values through gocql
// v2 (bound values, result metadata, field updates, conditions, driver
// schema metadata), then restarts the node and reads them again.
func TestDriverUDT(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto int
		comp  gocql.Compressor
	}{{"v4", 4, nil}, {"v5-lz4", 5, lz4.LZ4Compressor{}}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			n := startTestNode(t, dir)
			sess := connect(t, n, tc.proto, tc.comp)
			mustExec := func(q string, args ...any) {
				t.Helper()
				if err := sess.Query(q, args...).Exec(); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			mustExec(`CREATE KEYSPACE app WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`)
			mustExec(`CREATE TYPE app.address (street text, city text, zip int)`)
			mustExec(`CREATE TABLE app.users (id int PRIMARY KEY, home frozen<address>, work address, olds list<frozen<address>>)`)

			home := udtAddress{Street: "Main", City: "Boston", Zip: 2101}
			work := map[string]any{"street": "Elm", "city": "Cambridge", "zip": 2139}
			mustExec(`INSERT INTO app.users (id, home, work, olds) VALUES (?, ?, ?, ?)`, 1, home, work,
				[]udtAddress{{Street: "a", City: "b", Zip: 1}, {Street: "c", City: "d", Zip: 2}})
			mustExec(`UPDATE app.users SET work.zip = ? WHERE id = ?`, 2140, 1)
			mustExec(`UPDATE app.users SET work.street = ? WHERE id = ?`, nil, 1)

			check := func(sess *gocql.Session) {
				t.Helper()
				var gotHome udtAddress
				gotWork := map[string]any{}
				var olds []udtAddress
				if err := sess.Query(`SELECT home, work, olds FROM app.users WHERE id = ?`, 1).Scan(&gotHome, &gotWork, &olds); err != nil {
					t.Fatal(err)
				}
				if gotHome != home {
					t.Fatalf("home = %+v, want %+v", gotHome, home)
				}
				wantWork := map[string]any{"street": "", "city": "Cambridge", "zip": 2140}
				if !reflect.DeepEqual(gotWork, wantWork) {
					t.Fatalf("work = %#v, want %#v", gotWork, wantWork)
				}
				if len(olds) != 2 || olds[1].City != "d" {
					t.Fatalf("olds = %+v", olds)
				}
				var city string
				var zip int
				if err := sess.Query(`SELECT home.city, work.zip FROM app.users WHERE id = 1`).Scan(&city, &zip); err != nil {
					t.Fatal(err)
				}
				if city != "Boston" || zip != 2140 {
					t.Fatalf("fields = %q %d", city, zip)
				}
			}
			check(sess)

			// A condition on a field, bound.
			applied, err := sess.Query(`UPDATE app.users SET work.city = ? WHERE id = ? IF work.zip = ?`, "Somerville", 1, 2140).
				MapScanCAS(map[string]any{})
			if err != nil || !applied {
				t.Fatalf("conditional field update: applied=%v err=%v", applied, err)
			}
			mustExec(`UPDATE app.users SET work.city = ? WHERE id = ?`, "Cambridge", 1)

			// The driver's schema metadata (refreshed on the pushed
			// SCHEMA_CHANGE events) sees the type.
			var ut *gocql.UserTypeMetadata
			for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if md, err := sess.KeyspaceMetadata("app"); err == nil && md.UserTypes["address"] != nil {
					ut = md.UserTypes["address"]
					break
				}
			}
			if ut == nil || !reflect.DeepEqual(ut.FieldNames, []string{"street", "city", "zip"}) {
				t.Fatalf("user type metadata: %+v", ut)
			}
			sess.Close()

			// A bound value with a missing trailing field (written before a
			// field was added, as drivers may send) is accepted.
			ex := n.Executor()
			v := types.EncodeTuple([][]byte{types.EncodeText("x"), types.EncodeText("y")})
			if _, err := ex.Query(context.Background(), &query.Session{}, `INSERT INTO app.users (id, home, work) VALUES (2, ?, ?)`,
				&query.Options{Consistency: 1, Values: []query.Value{{B: v}, {B: v}}}); err != nil {
				t.Fatal(err)
			}
			tooMany := types.EncodeTuple([][]byte{nil, nil, nil, nil})
			if _, err := ex.Query(context.Background(), &query.Session{}, `INSERT INTO app.users (id, home) VALUES (3, ?)`,
				&query.Options{Consistency: 1, Values: []query.Value{{B: tooMany}}}); err == nil {
				t.Fatal("a UDT value with too many fields was accepted")
			}

			// Bind markers inside UDT literals and field assignments are
			// named after the field (UserTypes.fieldSpecOf); an unset field of
			// a frozen UDT literal is refused.
			prep, err := ex.Prepare(context.Background(), &query.Session{}, `UPDATE app.users SET work.zip = ?, home = {street: ?} WHERE id = ?`, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(prep.Bound) != 3 || prep.Bound[0].Name != "work.zip" || prep.Bound[0].Type.Kind != types.Int ||
				prep.Bound[1].Name != "home.street" || prep.Bound[1].Type.Kind != types.Text {
				t.Fatalf("bound specs %+v", prep.Bound)
			}
			_, err = ex.Query(context.Background(), &query.Session{}, `UPDATE app.users SET home = {street: ?} WHERE id = 1`,
				&query.Options{Consistency: 1, Values: []query.Value{{Unset: true}}})
			if err == nil || !strings.Contains(err.Error(), "Invalid unset value for field 'street' of user defined type address") {
				t.Fatalf("unset field of a frozen UDT: %v", err)
			}

			stopTestNode(t, n)
			n = startTestNode(t, dir)
			defer stopTestNode(t, n)
			sess = connect(t, n, tc.proto, tc.comp)
			defer sess.Close()
			check(sess)
			var street string
			var zip *int
			if err := sess.Query(`SELECT work.street, work.zip FROM app.users WHERE id = 2`).Scan(&street, &zip); err != nil {
				t.Fatal(err)
			}
			if street != "x" || zip != nil {
				t.Fatalf("id 2: street %q zip %v", street, zip)
			}
		})
	}
}
