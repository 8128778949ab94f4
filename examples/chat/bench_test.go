package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
)

// useCases are the seed's use cases as SQL over chat.xml's tables; the
// same text runs on the attached store and on kvsql's own tables.
var useCases = []struct{ name, sql string }{
	{"getUser", `SELECT u.id, u.username FROM usernames n JOIN users u ON u.id = n.user_id WHERE n.username = 'user007'`},
	{"getChats", `SELECT c.id, c.name, c.last_activity FROM users u, unnest(string_to_array(u.chats, ',')) AS m(cid), chats c WHERE c.id = m.cid::bigint AND u.id = 5`},
	{"getUserChatMessages", userChatMessages},
	{"checkChatMember", `SELECT '7' = ANY (string_to_array(members, ',')) AS member FROM chats WHERE id = 3`},
	{"getChatMessages", `SELECT id, text, "timestamp", sender FROM messages WHERE chat_id = 3 AND id >= 10 AND id < 20 ORDER BY id LIMIT 5`},
	{"getAllChatMessages", `SELECT id, text, "timestamp", sender FROM messages WHERE chat_id = 3 ORDER BY id`},
	{"getUserFromSession", `SELECT user_id, expiry FROM sessions WHERE id = 'daa66d13'`},
}

// userChatMessages is "the messages of a user's chats": user 5's chat
// list, then one prefix scan of chat:{id}:message: per chat (a lookup
// join into messages).
const userChatMessages = `SELECT m.chat_id, count(*), max(m."timestamp") FROM users u, unnest(string_to_array(u.chats, ',')) AS c(cid) JOIN messages m ON m.chat_id = c.cid::bigint WHERE u.id = 5 GROUP BY m.chat_id ORDER BY m.chat_id`

// openChat writes the example store into a temporary directory,
// attaches it as database chat, and copies its rows into kvsql's own
// tables of the same names in database kvsql.
func openChat(tb testing.TB) (foreignS, nativeS *session.Session) {
	tb.Helper()
	dir := tb.TempDir()
	if err := writeStore(filepath.Join(dir, "chat.ldb"), config{users: 100, chats: 40, messages: 50, seed: 1}); err != nil {
		tb.Fatal(err)
	}
	doc, err := os.ReadFile("chat.xml")
	if err != nil {
		tb.Fatal(err)
	}
	c, err := catalog.ImportXML(doc)
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.ResolveStores(dir); err != nil {
		tb.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	e, err := kv.OpenPebble(data, kv.PebbleOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	old, err := catalog.Open(e)
	if err != nil {
		tb.Fatal(err)
	}
	if c, err = old.AttachForeign(c); err != nil {
		tb.Fatal(err)
	}
	b := e.NewBatch()
	if err := catalog.ClearMeta(b); err != nil {
		tb.Fatal(err)
	}
	if err := catalog.Install(b, c); err != nil {
		tb.Fatal(err)
	}
	if err := b.Commit(true); err != nil {
		tb.Fatal(err)
	}
	b.Close()
	e.Close()
	db, err := session.Open(session.Options{Dir: data})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if foreignS, err = db.Session("chat"); err != nil {
		tb.Fatal(err)
	}
	if nativeS, err = db.Session("kvsql"); err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	for _, ddl := range []string{
		"CREATE TABLE users (id bigint PRIMARY KEY, username text, password text, chats text)",
		"CREATE TABLE usernames (username text PRIMARY KEY, user_id bigint)",
		"CREATE TABLE sessions (id text PRIMARY KEY, expiry bigint, user_id bigint)",
		"CREATE TABLE chats (id bigint PRIMARY KEY, name text, last_activity bigint, members text, admin bigint, next_message_id bigint)",
		"CREATE TABLE messages (chat_id bigint, id bigint, text text, \"timestamp\" bigint, sender bigint, PRIMARY KEY (chat_id, id))",
	} {
		if _, err := nativeS.Exec(ctx, ddl); err != nil {
			tb.Fatal(err)
		}
		table := strings.Fields(ddl)[2]
		res, err := foreignS.Exec(ctx, "SELECT * FROM "+table)
		if err != nil {
			tb.Fatal(err)
		}
		for _, row := range res[0].Rows {
			params := make([]string, len(row))
			for i := range row {
				params[i] = fmt.Sprintf("$%d", i+1)
			}
			if _, err := nativeS.Exec(ctx, "INSERT INTO "+table+" VALUES ("+strings.Join(params, ", ")+")", row...); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return foreignS, nativeS
}

func rowsOf(tb testing.TB, s *session.Session, q string) string {
	tb.Helper()
	res, err := s.Exec(context.Background(), q)
	if err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	var lines []string
	for _, r := range res[0].Rows {
		cells := make([]string, len(r))
		for i, d := range r {
			cells[i] = d.String()
			if d.Kind == types.KindNull {
				cells[i] = "NULL"
			}
		}
		lines = append(lines, strings.Join(cells, "|"))
	}
	return strings.Join(lines, "\n")
}

// TestUseCases: the attached store answers the seed's use cases as the
// same rows in kvsql's own tables do, and each reads keys by prefix.
func TestUseCases(t *testing.T) {
	fs, ns := openChat(t)
	for _, uc := range useCases {
		got, want := rowsOf(t, fs, uc.sql), rowsOf(t, ns, uc.sql)
		if got != want || got == "" {
			t.Errorf("%s:\n%s\nwant:\n%s", uc.name, got, want)
		}
		plan := rowsOf(t, fs, "EXPLAIN "+uc.sql)
		if !strings.Contains(plan, "foreign prefix scan") {
			t.Errorf("%s reads no key prefix:\n%s", uc.name, plan)
		}
		if strings.Contains(uc.sql, " JOIN ") && !strings.Contains(plan, "LookupJoin foreign prefix scan") {
			t.Errorf("%s is not a lookup join:\n%s", uc.name, plan)
		}
	}
}

// BenchmarkLookupJoin times "the messages of a user's chats" (2 of the
// 40 chats) as the planner makes it, a lookup join with one prefix scan
// of the messages per chat, beside the hash join it replaces: the same
// query with the join key hidden behind "+ 0", so the messages are read
// whole and hashed.
func BenchmarkLookupJoin(b *testing.B) {
	fs, _ := openChat(b)
	ctx := context.Background()
	hashed := strings.Replace(userChatMessages, "ON m.chat_id = c.cid::bigint", "ON m.chat_id + 0 = c.cid::bigint", 1)
	for _, v := range []struct{ name, sql, plan string }{
		{"lookup", userChatMessages, "LookupJoin foreign prefix scan"},
		{"hash", hashed, "HashJoin"},
	} {
		if plan := rowsOf(b, fs, "EXPLAIN "+v.sql); !strings.Contains(plan, v.plan) {
			b.Fatalf("%s: want a %s:\n%s", v.name, v.plan, plan)
		}
		if got, want := rowsOf(b, fs, v.sql), rowsOf(b, fs, userChatMessages); got != want {
			b.Fatalf("%s answers\n%s\nwant\n%s", v.name, got, want)
		}
		b.Run(v.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := fs.Exec(ctx, v.sql); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUseCases times each use case on the attached LevelDB store
// and on the same rows in kvsql's own layout (Pebble).
func BenchmarkUseCases(b *testing.B) {
	fs, ns := openChat(b)
	ctx := context.Background()
	for _, uc := range useCases {
		for _, side := range []struct {
			name string
			s    *session.Session
		}{{"leveldb-attached", fs}, {"kvsql-native", ns}} {
			b.Run(uc.name+"/"+side.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := side.s.Exec(ctx, uc.sql); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
