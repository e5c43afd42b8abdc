"""Mixed clients of bin/stress-mixed: random pipelines from several connections; exits 1 on a lost connection or an
error reply outside the ones these programs may get from Redis. Usage: stress-mixed.py PORT SECONDS CLIENTS"""
import random
import socket
import sys
import threading
import time
from collections import Counter

PORT, SECONDS, CLIENTS = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
# Error replies these programs get from Redis too (wrong types, aborted transactions, a group made twice, ...).
EXPECTED = ("WRONGTYPE", "ERR value is not", "ERR value is out of range", "ERR hash value is not", "EXECABORT",
            "ERR no such key", "BUSYGROUP", "NOGROUP", "ERR index out of range", "ERR The ID specified",
            "ERR Error running script", "ERR increment or decrement", "OOM",
            "ERR source and destination objects are the same", "NOSCRIPT",
            "UNBLOCKED the stream key no longer exists")
LIBRARY = ("#!lua name=stresslib\nredis.register_function('stressf', function(keys, args) "
           "redis.call('INCR', keys[1]); return redis.call('GET', keys[1]) end)")


class Error(str):
    pass


def encode(args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Connection:
    def __init__(self):
        self.sock = socket.create_connection(("127.0.0.1", PORT))
        self.sock.settimeout(30)
        self.buf = b""

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError("the server closed the connection")
        self.buf += data

    def _line(self):
        while b"\r\n" not in self.buf:
            self._fill()
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _bytes(self, n):
        while len(self.buf) < n + 2:
            self._fill()
        v, self.buf = self.buf[:n], self.buf[n + 2:]
        return v

    def read(self):
        line = self._line()
        kind, n = line[:1], line[1:]
        if kind in b"+:,_#(":
            return line
        if kind in b"-!":
            return Error(n.decode(errors="replace"))
        if kind in b"$=":
            return None if int(n) < 0 else self._bytes(int(n))
        if kind == b">":  # a RESP3 push (a tracking invalidation): not a reply
            for _ in range(int(n)):
                self.read()
            return self.read()
        if kind in b"*~":
            return None if int(n) < 0 else [self.read() for _ in range(int(n))]
        if kind == b"%":
            return [(self.read(), self.read()) for _ in range(int(n))]
        raise ValueError("bad reply %r" % line)

    def call(self, *commands):
        self.sock.sendall(b"".join(encode(c) for c in commands))
        return [self.read() for _ in commands]


def key():
    return "m:%d" % random.randint(0, 300)


def stream():
    return "st:%d" % random.randint(0, 5)


def big_hash():
    """A hash in the hashtable encoding (a value past hash-max-listpack-value), whose replies slice its entries."""
    return "bh:%d" % random.randint(0, 10)


def program():
    """One random group of commands (keys spread over the shards; {tag} keys share one)."""
    tag = "{t%d}:" % random.randint(0, 20)
    k = key()
    return random.choice([
        [["MULTI"], ["SET", key(), "v"], ["INCR", key()], ["LPUSH", key(), "x"], ["EXEC"]],
        [["MULTI"], ["SET", tag + "a", "1"], ["INCR", tag + "b"], ["EXEC"]],
        [["WATCH", k], ["GET", k], ["MULTI"], ["SET", k, "w"], ["EXEC"]],
        [["EVAL", "redis.call('INCR', KEYS[1]); return redis.call('INCR', KEYS[1]..'x')", 1, key()]],
        [["EVAL", "return redis.call('SET', KEYS[1], ARGV[1])", 1, tag + "s", "z"]],
        [["FCALL", "stressf", 1, key()]],
        [["FUNCTION", "LOAD", "REPLACE", LIBRARY]],
        [["BLPOP", key(), key(), "0.05"]],
        [["RPUSH", key(), "e1", "e2"], ["LMOVE", key(), key(), "LEFT", "RIGHT"]],
        [["XADD", stream(), "*", "f", "v"], ["XGROUP", "CREATE", stream(), "g", "0", "MKSTREAM"]],
        [["XREADGROUP", "GROUP", "g", "c1", "COUNT", "2", "BLOCK", "20", "STREAMS", stream(), ">"]],
        [["MSET", key(), "1", key(), "2", key(), "3"], ["MGET", key(), key(), key()]],
        [["SUNIONSTORE", key(), key(), key()], ["SADD", key(), "a", "b"]],
        [["ZADD", key(), "1", "a", "2", "b"], ["ZRANGESTORE", key(), key(), "0", "-1"]],
        [["HSET", key(), "f", "1"], ["HINCRBY", key(), "f", "2"]],
        [["HSET", big_hash(), "f%d" % random.randint(0, 50), "x" * 70, "g", "1"], ["HGETALL", big_hash()],
         ["HMGET", big_hash(), "f1", "g", "nope"]],
        [["MULTI"], ["HGET", big_hash(), "g"], ["HVALS", big_hash()], ["HDEL", big_hash(), "f2"], ["EXEC"]],
        [["EVAL", "return redis.call('HGETALL', KEYS[1])", 1, big_hash()], ["HKEYS", big_hash()]],
        [["EXPIRE", key(), "1"], ["SET", key(), "v", "PX", "30"]],
        [["DEL", key(), key()], ["EXISTS", key(), key()], ["UNLINK", key()]],
        [["RENAME", tag + "a", tag + "c"], ["COPY", key(), key(), "REPLACE"]],
        [["SCAN", "0", "COUNT", "50"], ["DBSIZE"], ["RANDOMKEY"]],
        [["PUBLISH", "ch%d" % random.randint(0, 3), "message"]],
        [["CLIENT", "LIST"], ["INFO", "memory"], ["MEMORY", "USAGE", key()]],
        [["WAIT", "0", "5"], ["WAITAOF", "1", "0", "50"]],
        [["SORT", key(), "LIMIT", "0", "5", "ALPHA"], ["OBJECT", "ENCODING", key()]],
    ])


lock = threading.Lock()
unexpected = Counter()
replies = Counter()


def note(commands, answers):
    with lock:
        for command, answer in zip(commands, answers):
            inner = answer if isinstance(answer, list) else [answer]
            for a in inner:
                if isinstance(a, Error) and not a.startswith(EXPECTED):
                    unexpected[(command[0], a[:160])] += 1
            replies[command[0]] += 1


def client(i):
    end = time.time() + SECONDS
    conn = Connection()
    if i % 3 == 0:
        conn.call(["HELLO", "3"])
    if i % 4 == 1:
        conn.call(["CLIENT", "TRACKING", "ON"])
    while time.time() < end:
        commands = [c for _ in range(random.randint(1, 4)) for c in program()]
        try:
            note(commands, conn.call(*commands))
        except Exception as e:  # a lost connection: counted, and a new one
            with lock:
                unexpected[("connection", repr(e)[:160])] += 1
            conn = Connection()


def subscriber():
    end = time.time() + SECONDS
    conn = Connection()
    conn.sock.sendall(encode(["SUBSCRIBE", "ch0", "ch1", "ch2"]))
    conn.sock.settimeout(1)
    while time.time() < end:
        try:
            conn.read()
        except socket.timeout:
            pass
        except Exception as e:
            with lock:
                unexpected[("subscriber", repr(e)[:160])] += 1
            return


Connection().call(["FUNCTION", "LOAD", "REPLACE", LIBRARY])
threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)] + [threading.Thread(target=subscriber)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("mixed clients: %d replies, %d unexpected" % (sum(replies.values()), sum(unexpected.values())))
for (what, text), n in unexpected.most_common(20):
    print("  %d x %s: %s" % (n, what, text))
sys.exit(1 if unexpected else 0)
