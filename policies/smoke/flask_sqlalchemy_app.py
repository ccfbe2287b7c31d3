# Smoke test: a Flask-SQLAlchemy app initializes, creates its tables and round-trips a row on an
# in-memory SQLite database. SQLAlchemy 2.x under Flask-SQLAlchemy 2.5 imports fine and fails here
# (`SQLAlchemy(app)`: module 'sqlalchemy' has no attribute '__all__').
from importlib.metadata import version

from flask import Flask
from flask_sqlalchemy import SQLAlchemy

app = Flask("planner_smoke")
app.config.update(
    SQLALCHEMY_DATABASE_URI="sqlite://", SQLALCHEMY_TRACK_MODIFICATIONS=False
)
db = SQLAlchemy(app)


class Item(db.Model):
    __tablename__ = "planner_smoke_item"
    id = db.Column(db.Integer, primary_key=True)
    name = db.Column(db.String(50))


with app.app_context():
    db.create_all()
    db.session.add(Item(name="planner"))
    db.session.commit()
    names = [item.name for item in db.session.query(Item).all()]
assert names == ["planner"], "the row read back is %r" % (names,)
print(
    "Flask-SQLAlchemy %s, SQLAlchemy %s, Flask %s: init, create_all, insert, query"
    % (version("flask-sqlalchemy"), version("sqlalchemy"), version("flask"))
)
