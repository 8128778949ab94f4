package session_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// chatStore is a Pebble store holding the chat application of bench/chat.go
// (the same schema and queries, smaller: chatUsers users and chats, five
// members each, chatMsgs messages per chat), built once per process.
var chatStore struct {
	once sync.Once
	err  error
	dir  string
	db   *session.DB
}

const (
	chatUsers = 2_000
	chatMsgs  = 50
)

var chatSchema = `CREATE TABLE users (user_id INT PRIMARY KEY, username TEXT NOT NULL UNIQUE, password TEXT NOT NULL);
CREATE TABLE chats (chat_id INT PRIMARY KEY, name TEXT NOT NULL, admin_id INT NOT NULL, last_activity BIGINT NOT NULL, next_message_id INT NOT NULL);
CREATE TABLE chat_members (chat_id INT NOT NULL, user_id INT NOT NULL, PRIMARY KEY (chat_id, user_id));
CREATE INDEX chat_members_user ON chat_members (user_id);
CREATE TABLE messages (chat_id INT NOT NULL, message_id INT NOT NULL, sender_id INT NOT NULL, sent_at BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (chat_id, message_id))`

// The chat reads of bench/chat.go.
const (
	chatGetChats    = `SELECT c.chat_id, c.name, c.last_activity FROM chat_members m JOIN chats c ON c.chat_id = m.chat_id WHERE m.user_id = $1 ORDER BY c.last_activity DESC`
	chatGetMessages = `SELECT message_id, sender_id, sent_at, body FROM messages WHERE chat_id = $1 AND message_id >= $2 ORDER BY message_id LIMIT $3`
	chatGetUser     = `SELECT user_id, password FROM users WHERE username = $1`
)

// loadChat fills the chat tables through s in multi-row INSERTs: user u is
// member j of chat (u - j*stride) mod users, so every user is in five
// chats, as in bench/chat.go.
func loadChat(ctx context.Context, s *session.Session, users, msgs int) error {
	if _, err := s.Exec(ctx, chatSchema); err != nil {
		return err
	}
	stride := users/5 + 1
	batch := func(table string, n int, row func(i int) string) error {
		for lo := 0; lo < n; lo += 1000 {
			q := "INSERT INTO " + table + " VALUES "
			for i := lo; i < lo+1000 && i < n; i++ {
				if i > lo {
					q += ", "
				}
				q += row(i)
			}
			if _, err := s.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
	if err := batch("users", users, func(i int) string { return fmt.Sprintf("(%d, 'user_%07d', 'pw%08x')", i, i, i*2654435761%(1<<32)) }); err != nil {
		return err
	}
	if err := batch("chats", users, func(i int) string { return fmt.Sprintf("(%d, 'chat %d', %d, %d, %d)", i, i, i, (i*7919)%users, msgs) }); err != nil {
		return err
	}
	if err := batch("chat_members", users*5, func(i int) string {
		c := i / 5
		return fmt.Sprintf("(%d, %d)", c, (c+(i%5)*stride)%users)
	}); err != nil {
		return err
	}
	if err := batch("messages", users*msgs, func(i int) string {
		c := i / msgs
		return fmt.Sprintf("(%d, %d, %d, %d, 'message body %d of chat %d')", c, i%msgs, c, i, i%msgs, c)
	}); err != nil {
		return err
	}
	// Compacted, so reads go through sstables as in the bench's store,
	// not through a memtable holding every row.
	_, err := s.Exec(ctx, "VACUUM ANALYZE users, chats, chat_members, messages")
	return err
}

func openChatStore(b *testing.B) *session.DB {
	chatStore.once.Do(func() {
		dir, err := os.MkdirTemp("", "kvsql-chat-bench-")
		if err != nil {
			chatStore.err = err
			return
		}
		chatStore.dir = dir
		db, err := session.Open(session.Options{Dir: dir, NoSync: true})
		if err != nil {
			chatStore.err = err
			return
		}
		chatStore.db = db
		s, err := db.Session("")
		if err != nil {
			chatStore.err = err
			return
		}
		start := time.Now()
		if chatStore.err = loadChat(context.Background(), s, chatUsers, chatMsgs); chatStore.err == nil {
			fmt.Fprintf(os.Stderr, "chat store: %d users loaded in %v\n", chatUsers, time.Since(start).Round(time.Millisecond))
		}
	})
	if chatStore.err != nil {
		b.Fatal(chatStore.err)
	}
	return chatStore.db
}

// BenchmarkChat runs the chat application's three reads as prepared
// statements through the session (Bind, Describe, Execute, rows read, no
// wire): what the server does per round trip of bench's chat workloads.
func BenchmarkChat(b *testing.B) {
	db := openChatStore(b)
	for _, c := range []struct {
		name, sql, plan string
		params          func(r *rand.Rand) []types.Datum
		rows            int
	}{
		{"list", chatGetChats, "chat_members_user", func(r *rand.Rand) []types.Datum {
			return []types.Datum{types.NewInt(r.Int63n(chatUsers))}
		}, 5},
		{"range", chatGetMessages, "messages", func(r *rand.Rand) []types.Datum {
			return []types.Datum{types.NewInt(r.Int63n(chatUsers)), types.NewInt(r.Int63n(chatMsgs / 2)), types.NewInt(10)}
		}, 10},
		{"user", chatGetUser, "users", func(r *rand.Rand) []types.Datum {
			return []types.Datum{types.NewText(fmt.Sprintf("user_%07d", r.Intn(chatUsers)))}
		}, 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, err := db.Session("")
			if err != nil {
				b.Fatal(err)
			}
			st := prepare(b, s, c.sql, c.plan)
			rng := rand.New(rand.NewSource(3))
			ps := make([][]types.Datum, 1024)
			for i := range ps {
				ps[i] = c.params(rng)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if len(st.ParamOIDs()) == 0 || len(st.Columns()) == 0 || st.Copy() != nil { // Bind, Describe
					b.Fatal("statement changed")
				}
				res, err := st.Execute(ctx, ps[i%len(ps)])
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for res.Next() {
					n++
				}
				if err := res.Err(); err != nil || n != c.rows {
					b.Fatalf("%d rows, %v", n, err)
				}
				if err := res.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The chat application's send (bench/chat.go's "chat: send a message"):
// one transaction per message.
const (
	chatNextID     = `UPDATE chats SET next_message_id = next_message_id + 1, last_activity = $2 WHERE chat_id = $1`
	chatReadID     = `SELECT next_message_id FROM chats WHERE chat_id = $1`
	chatAddMessage = `INSERT INTO messages (chat_id, message_id, sender_id, sent_at, body) VALUES ($1, $2, $3, $4, $5)`
)

// BenchmarkChatSend runs the chat application's send as pgx sends it
// (BEGIN, the UPDATE taking the chat's next message id, the SELECT
// reading it, the INSERT of the message, COMMIT; each a prepared
// statement executed as the wire server executes a portal) by one client
// on the chat store (commits unsynced): the CPU and allocations of the
// write path per message, without the WAL sync. It checks every
// statement's command tag and the id read.
//
//	go test ./session -run '^$' -bench ChatSend -benchmem -count 5
func BenchmarkChatSend(b *testing.B) {
	db := openChatStore(b)
	s, err := db.Session("")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	sts := map[string]backend.Statement{}
	for _, sql := range []string{"BEGIN", chatNextID, chatReadID, chatAddMessage, "COMMIT"} {
		p, err := s.Prepare(ctx, sql, nil)
		if err != nil {
			b.Fatal(err)
		}
		sts[sql] = p[0]
	}
	// run executes one statement, drains it and returns its last row's
	// first column (-1 without rows), checking the tag.
	run := func(sql, tag string, params ...types.Datum) int64 {
		res, err := sts[sql].Execute(ctx, params)
		if err != nil {
			b.Fatal(err)
		}
		v := int64(-1)
		for res.Next() {
			v = res.Row()[0].I
		}
		if err := res.Err(); err != nil || res.Tag() != tag {
			b.Fatalf("%s: %q, %v", sql, res.Tag(), err)
		}
		if err := res.Close(); err != nil {
			b.Fatal(err)
		}
		return v
	}
	rng := rand.New(rand.NewSource(5))
	body := types.NewText("hello from the benchmark")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		chat := types.NewInt(rng.Int63n(chatUsers))
		now := types.NewInt(int64(i))
		run("BEGIN", "BEGIN")
		run(chatNextID, "UPDATE 1", chat, now)
		id := run(chatReadID, "SELECT 1", chat)
		if id < chatMsgs+1 {
			b.Fatalf("chat %d: next id %d", chat.I, id)
		}
		run(chatAddMessage, "INSERT 0 1", chat, types.NewInt(id-1), types.NewInt(chat.I%chatUsers), now, body)
		run("COMMIT", "COMMIT")
	}
}
