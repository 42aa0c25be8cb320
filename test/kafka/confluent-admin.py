# librdkafka's admin client (python3-confluent-kafka, Debian's build on librdkafka 2.0) against the
# gateway, driven by test/kafka/librdkafka-admin.test.ts: creates, describes, alters, grows and
# deletes topics, and prints what it saw as one JSON object for the test to check.
import json
import sys

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, ConfigResource, NewPartitions, NewTopic

broker = sys.argv[1]
admin = AdminClient({"bootstrap.servers": broker, "socket.timeout.ms": 10000})
out = {}


def outcome(future):
    try:
        result = future.result(timeout=30)
        return {"ok": True, "result": result}
    except KafkaException as e:
        return {"ok": False, "error": e.args[0].name()}


def created(topics, validate_only=False):
    futures = admin.create_topics(topics, operation_timeout=10, validate_only=validate_only)
    return {name: {k: v for k, v in outcome(f).items() if k != "result"} for name, f in futures.items()}


out["create"] = created([
    NewTopic("rd-orders", num_partitions=3, replication_factor=1, config={"retention.ms": "3600000"}),
    NewTopic("rd-replicated", num_partitions=1, replication_factor=3),
    NewTopic("rd-bad-config", num_partitions=1, replication_factor=1, config={"retention.ms": "soon"}),
])
out["create_again"] = created([NewTopic("rd-orders", num_partitions=1, replication_factor=1)])
out["validate_only"] = created([NewTopic("rd-dry", num_partitions=2, replication_factor=1)], validate_only=True)
out["listed"] = sorted(admin.list_topics(timeout=10).topics.keys())
out["partitions"] = len(admin.list_topics(topic="rd-orders", timeout=10).topics["rd-orders"].partitions)


def describe(name):
    resource = ConfigResource("topic", name)
    r = outcome(admin.describe_configs([resource])[resource])
    if not r["ok"]:
        return r
    return {
        key: {"value": e.value, "is_default": e.is_default, "read_only": e.is_read_only, "source": int(e.source)}
        for key, e in r["result"].items()
    }


out["described"] = describe("rd-orders")
out["described_missing"] = describe("rd-missing")

# AlterConfigs (v0 from librdkafka 2.0): the whole set is replaced.
resource = ConfigResource("topic", "rd-orders", set_config={"segment.bytes": "4096"})
out["altered"] = {k: v for k, v in outcome(admin.alter_configs([resource])[resource]).items() if k != "result"}
after = describe("rd-orders")
out["after_alter"] = {k: after[k]["value"] for k in ("retention.ms", "segment.bytes")}
bad = ConfigResource("topic", "rd-orders", set_config={"segment.bytes": "huge"})
out["altered_bad"] = {k: v for k, v in outcome(admin.alter_configs([bad])[bad]).items() if k != "result"}
out["after_bad"] = describe("rd-orders")["segment.bytes"]["value"]

grow = admin.create_partitions([NewPartitions("rd-orders", 5)], operation_timeout=10)
out["grown"] = {k: v for k, v in outcome(grow["rd-orders"]).items() if k != "result"}
shrink = admin.create_partitions([NewPartitions("rd-orders", 2)], operation_timeout=10)
out["shrunk"] = {k: v for k, v in outcome(shrink["rd-orders"]).items() if k != "result"}

deleted = admin.delete_topics(["rd-orders", "rd-missing"], operation_timeout=10)
out["deleted"] = {name: {k: v for k, v in outcome(f).items() if k != "result"} for name, f in deleted.items()}
print(json.dumps(out))
