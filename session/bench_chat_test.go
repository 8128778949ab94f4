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
