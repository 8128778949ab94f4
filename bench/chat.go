package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
)

// ChatSchema is the chat application of seeds/000 in SQL: users (with the
// reverse index username → user id the paper adds), chats with their
// per-chat message counter, the many-to-many membership, and messages
// keyed by (chat, per-chat id).
var ChatSchema = []string{
	`CREATE TABLE users (user_id INT PRIMARY KEY, username TEXT NOT NULL UNIQUE, password TEXT NOT NULL)`,
	`CREATE TABLE chats (chat_id INT PRIMARY KEY, name TEXT NOT NULL, admin_id INT NOT NULL, last_activity BIGINT NOT NULL, next_message_id INT NOT NULL)`,
	`CREATE TABLE chat_members (chat_id INT NOT NULL, user_id INT NOT NULL, PRIMARY KEY (chat_id, user_id))`,
	`CREATE INDEX chat_members_user ON chat_members (user_id)`,
	`CREATE TABLE messages (chat_id INT NOT NULL, message_id INT NOT NULL, sender_id INT NOT NULL, sent_at BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (chat_id, message_id))`,
}

// The chat use-cases as queries.
const (
	// getChats(userId): the user's chats, most recently active first.
	ChatGetChats = `SELECT c.chat_id, c.name, c.last_activity FROM chat_members m JOIN chats c ON c.chat_id = m.chat_id WHERE m.user_id = $1 ORDER BY c.last_activity DESC`
	// getChatMessages(chatId, from, n): n messages from id from on.
	ChatGetMessages = `SELECT message_id, sender_id, sent_at, body FROM messages WHERE chat_id = $1 AND message_id >= $2 ORDER BY message_id LIMIT $3`
	// getUser(username), through the reverse index.
	ChatGetUser = `SELECT user_id, password FROM users WHERE username = $1`
	// addChatMessage: take the chat's next message id, then store the
	// message (one transaction, with the two statements below).
	ChatNextID     = `UPDATE chats SET next_message_id = next_message_id + 1, last_activity = $2 WHERE chat_id = $1`
	ChatReadID     = `SELECT next_message_id FROM chats WHERE chat_id = $1`
	ChatAddMessage = `INSERT INTO messages (chat_id, message_id, sender_id, sent_at, body) VALUES ($1, $2, $3, $4, $5)`
)

// chatMembers is the number of members of each chat.
const chatMembers = 5

func chatUsername(u int) string { return fmt.Sprintf("user_%07d", u) }

// chatWorkloads run each of the chat application's use-cases as its own
// workload through pgx with sc.Clients clients.
func chatWorkloads(sc Scales, seed uint64) []Workload {
	users := sc.ChatUsers
	chats := users // one chat per user, five members each
	msgs := sc.MsgsChat
	ds := newDataset(func(ctx context.Context, s *Server) error {
		if err := execAll(ctx, s, ChatSchema...); err != nil {
			return err
		}
		if err := copyRows(ctx, s, "users", []string{"user_id", "username", "password"}, users,
			func(i int, d []any) {
				d[0], d[1], d[2] = i, chatUsername(i), fmt.Sprintf("pw%08x", i*2654435761%(1<<32))
			}); err != nil {
			return err
		}
		if err := copyRows(ctx, s, "chats", []string{"chat_id", "name", "admin_id", "last_activity", "next_message_id"}, chats,
			func(i int, d []any) { d[0], d[1], d[2], d[3], d[4] = i, fmt.Sprintf("chat %d", i), i, int64(i), msgs }); err != nil {
			return err
		}
		// Chat c's j-th member is user (c + j*stride) mod users: for each j
		// a bijection, so every user is in exactly five chats.
		stride := users/chatMembers + 1
		if err := copyRows(ctx, s, "chat_members", []string{"chat_id", "user_id"}, chats*chatMembers,
			func(i int, d []any) { c := i / chatMembers; d[0], d[1] = c, (c+(i%chatMembers)*stride)%users }); err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(seed, 2))
		if err := copyRows(ctx, s, "messages", []string{"chat_id", "message_id", "sender_id", "sent_at", "body"}, chats*msgs,
			func(i int, d []any) {
				c := i / msgs
				d[0], d[1], d[2], d[3], d[4] = c, i%msgs, c%users, int64(i), ycsbValue(rng)[:40+rng.IntN(60)]
			}); err != nil {
			return err
		}
		return analyze(ctx, s, "users", "chats", "chat_members", "messages")
	})
	scale := fmt.Sprintf("%d users, %d chats, %d messages, %d clients", users, chats, chats*msgs, sc.Clients)
	rows := func(ctx context.Context, c *pgx.Conn, want func(int) error, sql string, args ...any) error {
		r, err := c.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		n := 0
		for r.Next() {
			n++
		}
		r.Close()
		if err := r.Err(); err != nil {
			return err
		}
		return want(n)
	}
	atLeast := func(k int) func(int) error {
		return func(n int) error {
			if n < k {
				return fmt.Errorf("%d rows, want at least %d", n, k)
			}
			return nil
		}
	}
	cases := []struct {
		name string
		op   Op
	}{
		{"get a user's chat list", func(ctx context.Context, cl *Client) error {
			return rows(ctx, cl.Conn, atLeast(chatMembers), ChatGetChats, cl.Rng.IntN(users))
		}},
		{"get a range of a chat's messages", func(ctx context.Context, cl *Client) error {
			return rows(ctx, cl.Conn, atLeast(min(10, msgs/2)), ChatGetMessages, cl.Rng.IntN(chats), cl.Rng.IntN(max(1, msgs/2)), 10)
		}},
		{"find a user by name", func(ctx context.Context, cl *Client) error {
			return rows(ctx, cl.Conn, atLeast(1), ChatGetUser, chatUsername(cl.Rng.IntN(users)))
		}},
		{"send a message", func(ctx context.Context, cl *Client) error {
			chat := cl.Rng.IntN(chats)
			return pgx.BeginFunc(ctx, cl.Conn, func(tx pgx.Tx) error {
				now := time.Now().UnixNano()
				if _, err := tx.Exec(ctx, ChatNextID, chat, now); err != nil {
					return err
				}
				var id int
				if err := tx.QueryRow(ctx, ChatReadID, chat).Scan(&id); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, ChatAddMessage, chat, id-1, chat%users, now, "hello from the benchmark")
				return err
			})
		}},
	}
	var out []Workload
	for _, uc := range cases {
		out = append(out, Workload{
			Name: "chat: " + uc.name, Group: "chat", Scale: scale,
			Setup: ds.setup,
			Run: func(ctx context.Context, t Target) ([]Measure, error) {
				s, err := server(t)
				if err != nil {
					return nil, err
				}
				st, err := Drive(ctx, s, sc.Clients, sc.Duration, seed, uc.op)
				if err != nil {
					return nil, err
				}
				return st.Measures(), nil
			},
		})
	}
	return out
}
