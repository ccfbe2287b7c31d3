# Smoke test: SQLAlchemy Core and ORM on in-memory SQLite (a declarative model, insert, select),
# and, where pandas is installed, pandas reading the table through the engine: pandas 1.5 under
# SQLAlchemy 2.0 imports fine and fails here ("'OptionEngine' object has no attribute 'execute'").
import importlib.util
from importlib.metadata import version

import sqlalchemy as sa
from sqlalchemy.orm import Session, declarative_base

Base = declarative_base()


class Item(Base):
    __tablename__ = "planner_smoke_item"
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(50))


engine = sa.create_engine("sqlite://")
Base.metadata.create_all(engine)
with Session(engine) as session:
    session.add_all([Item(name="a"), Item(name="b")])
    session.commit()
    names = [i.name for i in session.query(Item).order_by(Item.id)]
assert names == ["a", "b"], names
with engine.connect() as conn:
    count = conn.execute(sa.text("SELECT COUNT(*) FROM planner_smoke_item")).scalar()
assert count == 2, count
extra = ""
if importlib.util.find_spec("pandas") is not None:
    import pandas as pd

    frame = pd.read_sql("SELECT name FROM planner_smoke_item ORDER BY id", engine)
    assert list(frame["name"]) == ["a", "b"], frame
    extra = ", pandas %s read_sql" % version("pandas")
print("SQLAlchemy %s: Core, ORM, SQLite%s" % (version("sqlalchemy"), extra))
