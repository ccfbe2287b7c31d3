# Smoke test: kombu round-trips a message through its in-memory transport (a producer, a queue,
# a consumer), and a Celery app with that broker sends a task and runs it eagerly: celery, kombu,
# billiard and vine must agree on their interfaces, which their imports alone do not exercise.
from importlib.metadata import version

from kombu import Connection, Exchange, Queue

exchange = Exchange("planner_smoke", type="direct")
queue = Queue("planner_smoke", exchange, routing_key="smoke")
got = []
with Connection("memory://") as conn:
    producer = conn.Producer(serializer="json")
    producer.publish({"n": 41}, exchange=exchange, routing_key="smoke", declare=[queue])
    with conn.Consumer(
        queue, callbacks=[lambda body, message: (got.append(body), message.ack())]
    ):
        conn.drain_events(timeout=10)
assert got == [{"n": 41}], got

from celery import Celery

app = Celery("planner_smoke", broker="memory://", backend="cache+memory://")
app.conf.update(task_always_eager=True, task_eager_propagates=True)


@app.task
def add(x, y):
    return x + y


assert add.delay(40, 2).get(timeout=10) == 42
print(
    "celery %s, kombu %s, billiard %s: a message through kombu's memory transport, an eager task"
    % (version("celery"), version("kombu"), version("billiard"))
)
