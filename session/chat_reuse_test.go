package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// TestChatReadsReuseAgree runs the chat reads of bench/chat.go as prepared
// statements kept for the whole test, executed again and again with
// random parameters, and compares every answer with that of the same
// statement prepared afresh (a new plan, new scan shapes, new operators)
// with the same parameters. Between executions another session writes
// to every table the reads touch (new members, moved chats, new and
// deleted messages, renamed users), and some executions run inside an
// explicit transaction of the reading session after a write of its own,
// which the reuse must see too. Reproduce a failure with the printed
// -seed.
func TestChatReadsReuseAgree(t *testing.T) {
	rng := seededRand(t)
	db, err := session.Open(session.Options{Dir: t.TempDir(), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	reader, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	writer, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	const users, msgs = 60, 20
	if err := loadChat(ctx, writer, users, msgs); err != nil {
		t.Fatal(err)
	}
	exec := func(s *session.Session, sql string) {
		t.Helper()
		if _, err := s.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	kept := map[string]backend.Statement{}
	for _, sql := range []string{chatGetChats, chatGetMessages, chatGetUser} {
		sts, err := reader.Prepare(ctx, sql, nil)
		if err != nil {
			t.Fatal(err)
		}
		kept[sql] = sts[0]
	}
	stamp := 1_000_000 // last_activity values stay distinct: the list's order is total
	write := func(s *session.Session) {
		stamp++
		c, u := rng.Intn(users+5), rng.Intn(users+5)
		switch rng.Intn(6) {
		case 0:
			exec(s, fmt.Sprintf("INSERT INTO chat_members VALUES (%d, %d) ON CONFLICT DO NOTHING", c, u))
		case 1:
			exec(s, fmt.Sprintf("DELETE FROM chat_members WHERE chat_id = %d AND user_id = %d", c, u))
		case 2:
			exec(s, fmt.Sprintf("UPDATE chats SET last_activity = %d, name = 'chat %d moved' WHERE chat_id = %d", stamp, c, c))
		case 3:
			exec(s, fmt.Sprintf("INSERT INTO messages VALUES (%d, %d, %d, %d, 'late %d') ON CONFLICT DO NOTHING", c, rng.Intn(2*msgs), u, stamp, stamp))
		case 4:
			exec(s, fmt.Sprintf("DELETE FROM messages WHERE chat_id = %d AND message_id BETWEEN %d AND %d", c, rng.Intn(msgs), rng.Intn(msgs)+2))
		case 5:
			exec(s, fmt.Sprintf("UPDATE users SET username = 'user_%07d', password = 'pw %d' WHERE user_id = %d", u+1000*(stamp%3), stamp, u))
		}
	}
	params := func(sql string) []types.Datum {
		switch sql {
		case chatGetChats:
			return []types.Datum{types.NewInt(int64(rng.Intn(users + 5)))}
		case chatGetMessages:
			return []types.Datum{types.NewInt(int64(rng.Intn(users + 5))), types.NewInt(int64(rng.Intn(msgs*2) - 2)), types.NewInt(int64(rng.Intn(12)))}
		}
		return []types.Datum{types.NewText(fmt.Sprintf("user_%07d", rng.Intn(users+5)+1000*rng.Intn(3)))}
	}
	sqls := []string{chatGetChats, chatGetMessages, chatGetUser}
	answered := 0 // executions that returned rows: the comparison is not of empty answers
	for i := 0; i < 1500; i++ {
		if rng.Intn(3) == 0 {
			write(writer)
		}
		inTxn := rng.Intn(8) == 0
		if inTxn {
			exec(reader, "BEGIN")
			write(reader)
		}
		sql := sqls[rng.Intn(len(sqls))]
		ps := params(sql)
		got := runRows(t, kept[sql], ps)
		sts, err := reader.Prepare(ctx, sql, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := runRows(t, sts[0], ps)
		if got != want {
			t.Fatalf("execution %d of %s with %v (in a transaction: %v):\nkept statement:\n%s\nfresh statement:\n%s", i, sql, ps, inTxn, got, want)
		}
		if got != "" {
			answered++
		}
		if inTxn {
			if rng.Intn(2) == 0 {
				exec(reader, "COMMIT")
			} else {
				exec(reader, "ROLLBACK")
			}
		}
	}
	if answered < 500 {
		t.Fatalf("only %d of 1500 executions returned rows", answered)
	}
}

// runRows executes st with params and returns its rows, one a line.
func runRows(t *testing.T, st backend.Statement, params []types.Datum) string {
	t.Helper()
	res, err := st.Execute(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for res.Next() {
		for i, d := range res.Row() {
			if i > 0 {
				b.WriteString(" | ")
			}
			fmt.Fprint(&b, d)
		}
		b.WriteByte('\n')
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
