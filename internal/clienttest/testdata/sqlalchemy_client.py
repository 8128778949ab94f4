"""SQLAlchemy (Debian's python3-sqlalchemy) against one server: Core,
ORM and the full inspector. It prints what it sees, one line per fact,
so a test can compare kvsql's output with PostgreSQL 15's, and asserts
the values it knows besides."""
import sys

import sqlalchemy as sa
from sqlalchemy import orm

url = sys.argv[1].replace("postgres://", "postgresql+psycopg2://", 1)
engine = sa.create_engine(url, future=True)


def out(*a):
    print(*a, flush=True)


with engine.begin() as c:
    for t in ("sa_v_big", "sa_pets", "sa_people", "sa_core", "sa_parts"):
        c.execute(sa.text("DROP VIEW IF EXISTS sa_v_big") if t == "sa_v_big"
                  else sa.text("DROP TABLE IF EXISTS %s CASCADE" % t))

# Core: a table made by MetaData.create_all, inserts, selects with bound
# parameters.
md = sa.MetaData()
core = sa.Table(
    "sa_core", md,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(40), nullable=False),
    sa.Column("score", sa.Numeric(10, 2)),
    sa.Column("active", sa.Boolean, server_default=sa.text("true")),
)
md.create_all(engine)
with engine.begin() as c:
    c.execute(core.insert(), [
        {"name": "ann", "score": 12.5},
        {"name": "bob", "score": 7},
        {"name": "cy", "score": None},
    ])
    r = c.execute(core.insert().values(name="dee", score=3).returning(core.c.id))
    out("core returning id", r.scalar_one())
with engine.connect() as c:
    rows = c.execute(sa.select(core.c.id, core.c.name, core.c.score, core.c.active)
                     .where(core.c.score > sa.bindparam("min"))
                     .order_by(core.c.id), {"min": 5}).all()
    for row in rows:
        out("core row", tuple(row))
    assert [r.name for r in rows] == ["ann", "bob"], rows
    n = c.execute(sa.select(sa.func.count()).select_from(core)
                  .where(core.c.name.in_(["ann", "cy", "zed"]))).scalar_one()
    out("core count in", n)
    assert n == 2
    upd = c.execute(core.update().where(core.c.name == "cy").values(score=1))
    out("core update rowcount", upd.rowcount)
    c.rollback()

# ORM: two mapped classes with a one-to-many relationship.
Base = orm.declarative_base()


class Person(Base):
    __tablename__ = "sa_people"
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(50), nullable=False, unique=True)
    pets = orm.relationship("Pet", back_populates="owner", order_by="Pet.id")


class Pet(Base):
    __tablename__ = "sa_pets"
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(50), nullable=False)
    owner_id = sa.Column(sa.Integer, sa.ForeignKey("sa_people.id", ondelete="CASCADE"), index=True)
    owner = orm.relationship("Person", back_populates="pets")


Base.metadata.create_all(engine)
with orm.Session(engine) as s:
    p = Person(name="alice", pets=[Pet(name="rex"), Pet(name="tom")])
    s.add(p)
    s.add(Person(name="bert"))
    s.commit()
    out("orm person id", p.id, [x.id for x in p.pets])
with orm.Session(engine) as s:
    alice = s.query(Person).filter_by(name="alice").one()
    out("orm pets", [x.name for x in alice.pets])
    assert [x.name for x in alice.pets] == ["rex", "tom"]
    q = (s.query(Person.name, sa.func.count(Pet.id))
         .outerjoin(Pet).group_by(Person.name).order_by(Person.name).all())
    out("orm counts", [tuple(r) for r in q])
    assert [tuple(r) for r in q] == [("alice", 2), ("bert", 0)]
    rex = s.execute(sa.select(Pet).where(Pet.name == "rex")).scalar_one()
    out("orm owner", rex.owner.name)
    rex.name = "rexy"
    s.commit()
    s.delete(alice)
    s.commit()
    out("orm pets left", s.query(Pet).count())

# The full inspector over tables with every kind of constraint, an index
# and a view.
with engine.begin() as c:
    c.execute(sa.text("""CREATE TABLE sa_parts (
        id bigserial PRIMARY KEY,
        code varchar(12) NOT NULL,
        maker text DEFAULT 'acme',
        qty integer NOT NULL DEFAULT 0 CHECK (qty >= 0),
        price numeric(8,2),
        made date,
        owner_id integer REFERENCES sa_people(id) ON DELETE SET NULL,
        CONSTRAINT sa_parts_code_maker_key UNIQUE (code, maker)
    )"""))
    c.execute(sa.text("CREATE INDEX sa_parts_made_idx ON sa_parts (made)"))
    c.execute(sa.text("CREATE UNIQUE INDEX sa_parts_price_uidx ON sa_parts (price, qty)"))
    c.execute(sa.text("CREATE VIEW sa_v_big AS SELECT id, code FROM sa_parts WHERE qty > 10"))

insp = sa.inspect(engine)
names = [n for n in insp.get_table_names() if n.startswith("sa_")]
out("tables", sorted(names))
assert sorted(names) == ["sa_core", "sa_parts", "sa_people", "sa_pets"], names
out("views", sorted(n for n in insp.get_view_names() if n.startswith("sa_")))
for t in ("sa_core", "sa_people", "sa_pets", "sa_parts"):
    for col in insp.get_columns(t):
        d = dict(col)
        d["type"] = repr(d["type"])
        out("column", t, sorted(d.items()))
    out("pk", t, sorted(insp.get_pk_constraint(t).items()))
    for fk in insp.get_foreign_keys(t):
        out("fk", t, sorted(fk.items()))
    for ix in sorted(insp.get_indexes(t), key=lambda i: i["name"]):
        out("index", t, sorted(ix.items()))
    for uq in sorted(insp.get_unique_constraints(t), key=lambda u: u["name"]):
        out("unique", t, sorted(uq.items()))
    for ck in sorted(insp.get_check_constraints(t), key=lambda u: u["name"]):
        out("check", t, sorted(ck.items()))
out("view definition columns", [c["name"] for c in insp.get_columns("sa_v_big")])
pk = insp.get_pk_constraint("sa_parts")
assert pk["constrained_columns"] == ["id"], pk
uqs = insp.get_unique_constraints("sa_parts")
assert [u["column_names"] for u in uqs] == [["code", "maker"]], uqs
fks = insp.get_foreign_keys("sa_pets")
assert fks[0]["referred_table"] == "sa_people" and fks[0]["constrained_columns"] == ["owner_id"], fks
out("all checks passed")
