package bench

import (
	"context"
	"testing"
)

// TestChatSchemaInProcess loads the chat schema into an in-process kvsql
// (memory store) and SQLite, adds a few rows, and runs every use-case
// query with the parameters the workload passes, checking the rows.
func TestChatSchemaInProcess(t *testing.T) {
	ctx := context.Background()
	kv, err := OpenKvsqlEmbedded(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	lite, err := OpenSQLiteEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	for _, e := range []Embedded{kv, lite} {
		t.Run(e.Name(), func(t *testing.T) {
			for _, q := range ChatSchema {
				if err := e.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			for _, q := range []string{
				`INSERT INTO users VALUES (1, 'alice', 'pw1'), (2, 'bob', 'pw2'), (3, 'carol', 'pw3')`,
				`INSERT INTO chats VALUES (10, 'a-b', 1, 100, 2), (11, 'all', 1, 200, 0)`,
				`INSERT INTO chat_members VALUES (10, 1), (10, 2), (11, 1), (11, 2), (11, 3)`,
				`INSERT INTO messages VALUES (10, 0, 1, 1, 'hi'), (10, 1, 2, 2, 'hello')`,
			} {
				if err := e.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			query := func(sql string, want int, args ...int64) {
				t.Helper()
				p, err := e.Prepare(ctx, sql)
				if err != nil {
					t.Fatalf("prepare %s: %v", sql, err)
				}
				defer p.Close()
				got, err := p.Query(ctx, args...)
				if err != nil {
					t.Fatalf("%s %v: %v", sql, args, err)
				}
				if got != want {
					t.Errorf("%s %v: %d rows, want %d", sql, args, got, want)
				}
			}
			query(ChatGetChats, 2, 1)
			query(ChatGetChats, 1, 3)
			query(ChatGetMessages, 2, 10, 0, 10)
			query(ChatGetMessages, 1, 10, 1, 10)
			query(ChatGetMessages, 1, 10, 0, 1)
			// send a message to chat 10: take id 2, store it.
			if err := e.Exec(ctx, "BEGIN"); err != nil {
				t.Fatal(err)
			}
			query(ChatNextID, 0, 10, 300)
			query(ChatReadID, 1, 10)
			query(ChatAddMessage, 0, 10, 2, 1, 300, 7)
			if err := e.Exec(ctx, "COMMIT"); err != nil {
				t.Fatal(err)
			}
			query(ChatGetMessages, 3, 10, 0, 10)
		})
	}
	// getUser takes a text parameter: through the kvsql session directly.
	res, err := kv.Session().Exec(ctx, `SELECT user_id, password FROM users WHERE username = 'bob'`)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0].Rows) != 1 || res[0].Rows[0][0].I != 2 {
		t.Errorf("find bob: %+v, want user 2", res)
	}
}

// TestEmbeddedInsert checks the in-process loader on both engines.
func TestEmbeddedInsert(t *testing.T) {
	ctx := context.Background()
	kv, err := OpenKvsqlEmbedded(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	lite, err := OpenSQLiteEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	for _, e := range []Embedded{kv, lite} {
		if err := e.Exec(ctx, "CREATE TABLE t (id INT PRIMARY KEY, grp INT NOT NULL, val INT NOT NULL, pad TEXT)"); err != nil {
			t.Fatal(err)
		}
		if err := embeddedInsert(ctx, e, "t", 2500); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		p, err := e.Prepare(ctx, "SELECT id FROM t WHERE grp = $1")
		if err != nil {
			t.Fatal(err)
		}
		if got, err := p.Query(ctx, 3); err != nil || got != 100 {
			t.Errorf("%s: grp = 3 gave %d rows (%v), want 100", e.Name(), got, err)
		}
		p.Close()
	}
}
