// Command chat writes a chat application's LevelDB store exactly in the
// key schema of the seed study "Key-Value DB Feasibility Study and
// Implementation" (its final design, with the redundant per-user chat
// lists and the aggregated messages), so that kvsql can attach it with
// chat.xml and answer SQL over it where it lies.
//
//	go run ./examples/chat -dir ./examples/chat/chat.ldb
//	kvsql catalog import examples/chat/chat.xml --data ./kvsql-data   (store paths are relative to the document)
//	kvsql serve; psql -h 127.0.0.1 -p 5433 -d chat
//
// The keys, as the seed lists them (values in ASCII; a message is one
// JSON value, the seed's "structured attribute"):
//
//	user:$userId:username         user:$userId:password
//	user:$userId:chats            comma-separated chat ids
//	username:$username:userId     the reverse index
//	session:$sessionId:expiry     session:$sessionId:userId
//	users:nextId                  chats:nextId
//	chat:$chatId:name             chat:$chatId:lastActivity
//	chat:$chatId:members          comma-separated user ids
//	chat:$chatId:admin            chat:$chatId:messages:nextId
//	chat:$chatId:message:$messageId   {"text":…,"timestamp":…,"sender":…}
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand"
	"strconv"
	"strings"

	"github.com/syndtr/goleveldb/leveldb"
)

func main() {
	dir := flag.String("dir", "./chat.ldb", "LevelDB directory to create")
	users := flag.Int("users", 100, "number of users")
	chats := flag.Int("chats", 40, "number of chats")
	messages := flag.Int("messages", 50, "messages per chat")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()
	if err := writeStore(*dir, config{users: *users, chats: *chats, messages: *messages, seed: *seed}); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("wrote %d users, %d chats, %d messages into %s\n", *users, *chats, *chats**messages, *dir)
}

type config struct {
	users, chats, messages int
	seed                   int64
}

// writeStore creates the store as the seed's LevelDBAdapter would leave
// it after cfg.users createUser, cfg.chats createChat and
// cfg.messages addChatMessage calls per chat.
func writeStore(dir string, cfg config) error {
	db, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	rng := rand.New(rand.NewSource(cfg.seed))
	b := new(leveldb.Batch)
	put := func(k string, v string) { b.Put([]byte(k), []byte(v)) }
	userChats := make([][]string, cfg.users+1)
	for u := 1; u <= cfg.users; u++ {
		name := fmt.Sprintf("user%03d", u)
		put(fmt.Sprintf("user:%d:username", u), name)
		put(fmt.Sprintf("user:%d:password", u), fmt.Sprintf("pw%d", rng.Intn(1e6)))
		put(fmt.Sprintf("username:%s:userId", name), strconv.Itoa(u))
		if u%3 == 0 {
			sid := fmt.Sprintf("%08x", uint32(u)*2654435761) // an opaque token, as a web session's
			put(fmt.Sprintf("session:%s:expiry", sid), strconv.Itoa(1700000000+u))
			put(fmt.Sprintf("session:%s:userId", sid), strconv.Itoa(u))
		}
	}
	put("users:nextId", strconv.Itoa(cfg.users+1))
	for c := 1; c <= cfg.chats; c++ {
		n := 2 + rng.Intn(4)
		if c%4 == 0 {
			n = 2 // a private chat
		}
		members := map[int]bool{}
		var list []string
		for len(list) < n && len(list) < cfg.users {
			m := 1 + rng.Intn(cfg.users)
			if !members[m] {
				members[m] = true
				list = append(list, strconv.Itoa(m))
				userChats[m] = append(userChats[m], strconv.Itoa(c))
			}
		}
		admin := list[0]
		ts := int64(1700000000000)
		for m := 1; m <= cfg.messages; m++ {
			ts += int64(1000 + rng.Intn(60000))
			sender, _ := strconv.Atoi(list[rng.Intn(len(list))])
			v, _ := json.Marshal(map[string]any{"text": fmt.Sprintf("message %d of chat %d", m, c), "timestamp": ts, "sender": sender})
			put(fmt.Sprintf("chat:%d:message:%d", c, m), string(v))
		}
		put(fmt.Sprintf("chat:%d:name", c), fmt.Sprintf("chat %d", c))
		put(fmt.Sprintf("chat:%d:lastActivity", c), strconv.FormatInt(ts, 10))
		put(fmt.Sprintf("chat:%d:members", c), strings.Join(list, ","))
		put(fmt.Sprintf("chat:%d:admin", c), admin)
		put(fmt.Sprintf("chat:%d:messages:nextId", c), strconv.Itoa(cfg.messages+1))
	}
	put("chats:nextId", strconv.Itoa(cfg.chats+1))
	for u := 1; u <= cfg.users; u++ {
		put(fmt.Sprintf("user:%d:chats", u), strings.Join(userChats[u], ","))
	}
	return db.Write(b, nil)
}
