package clienttest

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for sqlx
	"github.com/jmoiron/sqlx"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/kvsql/kvsql/internal/testkit"
)

// The GORM models: a user has many orders.
type gormUser struct {
	ID        uint   `gorm:"primaryKey"`
	Name      string `gorm:"size:64;not null"`
	Email     string `gorm:"uniqueIndex;size:128"`
	Age       int
	CreatedAt time.Time
	Orders    []gormOrder `gorm:"foreignKey:UserID"`
}

type gormOrder struct {
	ID     uint `gorm:"primaryKey"`
	UserID uint `gorm:"index"`
	Item   string
	Amount float64
}

// gormRun drives GORM against url and returns what it saw, one line per
// fact; it fails t on any error.
func gormRun(t *testing.T, url string) []string {
	t.Helper()
	var out []string
	say := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	open := func() *gorm.DB {
		db, err := gorm.Open(postgres.Open(url), &gorm.Config{Logger: logger.Discard})
		if err != nil {
			t.Fatalf("gorm.Open %s: %v", url, err)
		}
		return db
	}
	db := open()
	// AutoMigrate on an empty database, then again as an application's
	// second start does (it reads the columns back through
	// information_schema and pg_catalog and must find nothing to change).
	for i := 0; i < 2; i++ {
		if err := open().AutoMigrate(&gormUser{}, &gormOrder{}); err != nil {
			t.Fatalf("AutoMigrate #%d on %s: %v", i+1, url, err)
		}
	}
	cols, err := db.Migrator().ColumnTypes(&gormUser{})
	if err != nil {
		t.Fatalf("ColumnTypes: %v", err)
	}
	// GORM's query has no ORDER BY: PostgreSQL happens to answer in
	// column order, kvsql's hash join in pg_type's; compare by name.
	sort.Slice(cols, func(i, j int) bool { return cols[i].Name() < cols[j].Name() })
	for _, c := range cols {
		n, _ := c.Nullable()
		pk, _ := c.PrimaryKey()
		l, _ := c.Length()
		u, _ := c.Unique()
		say("column %s %s nullable=%v pk=%v length=%d unique=%v", c.Name(), c.DatabaseTypeName(), n, pk, l, u)
	}
	say("has index %v", db.Migrator().HasIndex(&gormUser{}, "Email"))
	// Create with a has-many association: GORM inserts the orders with
	// ON CONFLICT ("id") DO UPDATE SET "user_id" = excluded."user_id".
	ann := gormUser{Name: "ann", Email: "ann@example.com", Age: 31,
		Orders: []gormOrder{{Item: "book", Amount: 12.5}, {Item: "pen", Amount: 1.25}}}
	if err := db.Create(&ann).Error; err != nil {
		t.Fatalf("Create with orders: %v", err)
	}
	say("created user %d orders %d %d", ann.ID, ann.Orders[0].ID, ann.Orders[1].ID)
	if err := db.Create(&gormUser{Name: "bob", Email: "bob@example.com", Age: 25}).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	if err := db.Create(&gormUser{Name: "dup", Email: "ann@example.com"}).Error; err == nil {
		t.Fatalf("a duplicate email was accepted")
	} else {
		say("duplicate: %v", strings.Contains(err.Error(), "23505"))
	}
	var users []gormUser
	if err := db.Preload("Orders").Order("name").Find(&users).Error; err != nil {
		t.Fatalf("Preload: %v", err)
	}
	for _, u := range users {
		var items []string
		for _, o := range u.Orders {
			items = append(items, fmt.Sprintf("%s:%v", o.Item, o.Amount))
		}
		say("user %s age %d orders %v", u.Name, u.Age, items)
	}
	if len(users) != 2 || len(users[0].Orders) != 2 || users[0].Orders[0].Item != "book" {
		t.Fatalf("Preload found %+v", users)
	}
	var n int64
	db.Model(&gormOrder{}).Where("amount > ?", 2).Count(&n)
	say("orders over 2: %d", n)
	if n != 1 {
		t.Fatalf("count = %d, want 1", n)
	}
	if err := db.Model(&gormUser{}).Where("name = ?", "bob").Update("age", gorm.Expr("age + ?", 1)).Error; err != nil {
		t.Fatalf("Update: %v", err)
	}
	var bob gormUser
	db.First(&bob, "email = ?", "bob@example.com")
	say("bob age %d", bob.Age)
	if bob.Age != 26 {
		t.Fatalf("bob's age = %d, want 26", bob.Age)
	}
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Delete(&gormOrder{}, "item = ?", "pen").Error; err != nil {
			return err
		}
		return fmt.Errorf("roll back")
	})
	db.Model(&gormOrder{}).Count(&n)
	say("orders after rollback: %d (%v)", n, err)
	if n != 2 {
		t.Fatalf("rolled-back delete left %d orders, want 2", n)
	}
	return out
}

// sqlxRun drives sqlx (over pgx's database/sql driver) against url.
func sqlxRun(t *testing.T, url string) []string {
	t.Helper()
	var out []string
	say := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	db, err := sqlx.Connect("pgx", url)
	if err != nil {
		t.Fatalf("sqlx.Connect: %v", err)
	}
	defer db.Close()
	db.MustExec(`CREATE TABLE sx_place (id serial PRIMARY KEY, city text NOT NULL, country text, telcode integer)`)
	type place struct {
		ID      int     `db:"id"`
		City    string  `db:"city"`
		Country *string `db:"country"`
		TelCode int     `db:"telcode"`
	}
	uk := "UK"
	for _, p := range []place{{City: "London", Country: &uk, TelCode: 44}, {City: "Oslo", TelCode: 47}, {City: "Leeds", Country: &uk, TelCode: 44}} {
		if _, err := db.NamedExec(`INSERT INTO sx_place (city, country, telcode) VALUES (:city, :country, :telcode)`, p); err != nil {
			t.Fatalf("NamedExec: %v", err)
		}
	}
	var one place
	if err := db.Get(&one, db.Rebind(`SELECT * FROM sx_place WHERE city = ?`), "Oslo"); err != nil {
		t.Fatalf("Get: %v", err)
	}
	say("get %d %s %v %d", one.ID, one.City, one.Country, one.TelCode)
	if one.City != "Oslo" || one.Country != nil || one.TelCode != 47 {
		t.Fatalf("Get = %+v", one)
	}
	var ps []place
	if err := db.Select(&ps, `SELECT * FROM sx_place WHERE telcode = $1 ORDER BY city`, 44); err != nil {
		t.Fatalf("Select: %v", err)
	}
	for _, p := range ps {
		say("select %d %s %s", p.ID, p.City, *p.Country)
	}
	if len(ps) != 2 || ps[0].City != "Leeds" {
		t.Fatalf("Select = %+v", ps)
	}
	q, args, err := sqlx.In(`SELECT city FROM sx_place WHERE id IN (?) ORDER BY id`, []int{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	var cities []string
	if err := db.Select(&cities, db.Rebind(q), args...); err != nil {
		t.Fatalf("Select IN: %v", err)
	}
	say("in %v", cities)
	rows, err := db.NamedQuery(`SELECT count(*) AS n FROM sx_place WHERE country = :c`, map[string]any{"c": "UK"})
	if err != nil {
		t.Fatalf("NamedQuery: %v", err)
	}
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		say("named count %d", n)
		if n != 2 {
			t.Fatalf("named count = %d, want 2", n)
		}
	}
	rows.Close()
	return out
}

func compareLines(t *testing.T, what string, want, got []string) {
	t.Helper()
	if strings.Join(want, "\n") == strings.Join(got, "\n") {
		return
	}
	t.Errorf("%s differs from PostgreSQL 15\nPostgreSQL:\n%s\nkvsql:\n%s", what, strings.Join(want, "\n"), strings.Join(got, "\n"))
}

// TestGORM runs GORM 1.31 with gorm.io/driver/postgres on PostgreSQL 15
// and on kvsql: AutoMigrate twice (an application's second start),
// Create with a has-many association (ON CONFLICT), Preload, Count,
// Update with an expression, a rolled-back transaction.
func TestGORM(t *testing.T) {
	pg := testkit.StartPostgres(t)
	kv := testkit.StartServer(t, nil, nil)
	compareLines(t, "GORM", gormRun(t, pg), gormRun(t, kv.URL()))
}

// TestSqlx runs sqlx's NamedExec, Get, Select, In and NamedQuery on
// PostgreSQL 15 and on kvsql.
func TestSqlx(t *testing.T) {
	pg := testkit.StartPostgres(t)
	kv := testkit.StartServer(t, nil, nil)
	compareLines(t, "sqlx", sqlxRun(t, pg), sqlxRun(t, kv.URL()))
}
