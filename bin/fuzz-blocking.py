"""The random blocking programs of bin/fuzz-blocking: python3 fuzz-blocking.py TIDE_PORT REDIS_PORT FIRST LAST STEPS
CLIENTS SINGLE RESP3. Each seed's program goes to both servers; the transcripts (every reply, BLOCKED, and each served
client's reply at the step it came) are compared and the first difference is printed with its context."""
import random
import select
import socket
import sys
import time


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.settimeout(10)
        self.f = self.s.makefile('rb')

    def send_only(self, args):
        a = [x if isinstance(x, bytes) else str(x).encode() for x in args]
        self.s.sendall(b"*%d\r\n" % len(a) + b"".join(b"$%d\r\n%s\r\n" % (len(x), x) for x in a))

    def send(self, args):
        self.send_only(args)
        return self.read()

    def read(self):
        line = self.f.readline()
        t = line[:1]
        if t in b"+-:,#_(":
            return line
        if t in b"$=!":
            n = int(line[1:-2])
            return line if n < 0 else line + self.f.read(n + 2)
        if t in b"*~>%|":
            n = int(line[1:-2])
            out = line
            for _ in range(max(n, 0) * (2 if t in b"%|" else 1)):
                out += self.read()
            return out
        raise IOError("bad reply %r" % line)

    def ready(self, timeout):
        return bool(select.select([self.s], [], [], timeout)[0])


KEYS = ['k1', 'k2', 'k3']


def command(r, st, single):
    k = lambda: r.choice(KEYS)
    ks = lambda n: r.sample(KEYS, n)
    el = lambda: r.choice(['a', 'b', 'c', '1', '2'])
    side = lambda: r.choice(['LEFT', 'RIGHT'])
    count = lambda: ['COUNT', str(r.randint(1, 3))] if r.random() < .5 else []
    st['xid'] += 1
    xid = '%d-1' % st['xid']
    n = 1 if single else r.randint(1, 3)
    blocking = [
        lambda: [r.choice(['BLPOP', 'BRPOP'])] + ks(n) + ['0'],
        lambda: ['BLMOVE', k(), k(), side(), side(), '0'],
        lambda: ['BRPOPLPUSH', k(), k(), '0'],
        lambda: ['BLMPOP', '0', str(n)] + ks(n) + [side()] + count(),
        lambda: [r.choice(['BZPOPMIN', 'BZPOPMAX'])] + ks(n) + ['0'],
        lambda: ['BZMPOP', '0', str(n)] + ks(n) + [r.choice(['MIN', 'MAX'])] + count(),
        lambda: ['XREAD', 'BLOCK', '0', 'STREAMS'] + ks(min(n, 2)) + ['$'] * min(n, 2),
        lambda: ['XREADGROUP', 'GROUP', 'g', 'c%d' % r.randint(1, 2), 'BLOCK', '0', 'STREAMS', k(), '>'],
    ]
    # Without SINGLE, stores over waited keys of another type and emptied streams are in: see BlockingFuzzVsRedisTest
    # for the differences by design they show.
    store = 'k4' if single else None
    plain = [
        lambda: [r.choice(['LPUSH', 'RPUSH']), k()] + [el() for _ in range(r.randint(1, 3))],
        lambda: [r.choice(['LPOP', 'RPOP']), k()],
        lambda: ['LMOVE', k(), k(), side(), side()],
        lambda: ['ZADD', k(), str(r.randint(1, 5)), el()],
        lambda: [r.choice(['ZPOPMIN', 'ZPOPMAX']), k()],
        lambda: ['XADD', k(), xid, 'f', el()],
        lambda: ['XGROUP', 'CREATE', k(), 'g', r.choice(['$', '0']), 'MKSTREAM'],
        lambda: ['XGROUP', 'DESTROY', k(), 'g'],
        lambda: [r.choice(['DEL', 'UNLINK']), k()],
        lambda: ['SET', k(), 'x'],
        lambda: ['RENAME', k(), k()],
        lambda: ['COPY', k(), k(), 'REPLACE'],
        lambda: ['MOVE', k(), '1'],
        lambda: ['SWAPDB', '0', '1'],
        lambda: ['SORT', k(), 'ALPHA', 'STORE', store or k()],
        lambda: ['ZUNIONSTORE', store or k(), '2', k(), k()],
        lambda: ['RENAME', 'k4', k()] if single else ['XTRIM', k(), 'MAXLEN', '0'],
        lambda: ['EVAL', "redis.call('RPUSH', KEYS[1], 'e'); return redis.call('LPUSH', KEYS[2], 'f')", '2', k(), k()],
    ]
    if r.random() < .35:
        return r.choice(blocking)(), False
    if r.random() < .1:
        return [r.choice(plain)() for _ in range(r.randint(1, 3))], True
    return r.choice(plain)(), False


def blocked_ids(ctl):
    ids = set()
    for line in ctl.send(['CLIENT', 'LIST']).decode(errors='replace').split('\n'):
        fields = dict(f.split('=', 1) for f in line.split(' ') if '=' in f)
        if 'b' in fields.get('flags', ''):
            ids.add(int(fields['id']))
    return ids


def run(port, seed, steps, clients, single, resp3):
    r = random.Random(seed)
    ctl = Conn(port)
    ctl.send(['FLUSHALL'])
    ws = [Conn(port) for _ in range(clients)]
    for w in ws[1::2] if resp3 else []:
        w.send(['HELLO', '3'])  # every other client speaks RESP3 (the HELLO reply itself differs: not recorded)
    ids = [int(w.send(['CLIENT', 'ID'])[1:-2]) for w in ws]
    blocked = [False] * clients
    st = {'xid': 0}
    out = []
    for step in range(steps):
        free = [i for i in range(clients) if not blocked[i]]
        if not free:
            i = r.randrange(clients)
            extra = ['ERROR'] if r.random() < .3 else []
            out.append('%d unblock w%d %r' % (step, i, ctl.send(['CLIENT', 'UNBLOCK', str(ids[i])] + extra)))
            out.append('%d   w%d <- %r' % (step, i, ws[i].read()))
            blocked[i] = False
            continue
        i = r.choice(free)
        c, multi = command(r, st, single)
        if multi:
            replies = [ws[i].send(['MULTI'])] + [ws[i].send(x) for x in c] + [ws[i].send(['EXEC'])]
            out.append('%d w%d MULTI %r -> %r' % (step, i, c, replies[-1]))
        else:
            ws[i].send_only(c)
            reply = None
            for _ in range(2000):
                if ws[i].ready(0.005):
                    reply = ws[i].read()
                    break
                if ids[i] in blocked_ids(ctl):
                    break
            if reply is None and ws[i].ready(0.02):
                reply = ws[i].read()
            blocked[i] = reply is None
            out.append('%d w%d %s -> %s' % (step, i, ' '.join(c), 'BLOCKED' if reply is None else repr(reply)))
        # A served client's flag and reply can trail the step by a few milliseconds (CLIENT LIST itself takes about
        # one on Tide): look five times, the last two after a pause.
        for attempt in range(5):
            if attempt >= 3:
                time.sleep(0.005)
            still = blocked_ids(ctl)
            for j in range(clients):
                if blocked[j] and ids[j] not in still:
                    out.append('%d   w%d <- %r' % (step, j, ws[j].read()))
                    blocked[j] = False
    for j in range(clients):
        if blocked[j]:
            ctl.send(['CLIENT', 'UNBLOCK', str(ids[j])])
            out.append('end w%d <- %r' % (j, ws[j].read()))
    reads = {b'+list\r\n': ['LRANGE', '%s', '0', '-1'], b'+zset\r\n': ['ZRANGE', '%s', '0', '-1', 'WITHSCORES'],
             b'+stream\r\n': ['XRANGE', '%s', '-', '+'], b'+string\r\n': ['GET', '%s']}
    for db in ('0', '1'):
        ctl.send(['SELECT', db])
        for key in KEYS:
            t = ctl.send(['TYPE', key])
            read = reads.get(t)
            out.append('db%s %s %r %r' % (db, key, t, ctl.send([a % key if a == '%s' else a for a in read])
                                          if read else None))
    for c in ws + [ctl]:
        c.s.close()
    return out


def main():
    tide, redis, first, last, steps, clients, single, resp3 = map(int, sys.argv[1:9])
    same = 0
    for seed in range(first, last):
        a = run(tide, seed, steps, clients, single, resp3)
        b = run(redis, seed, steps, clients, single, resp3)
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
        if at is None and len(a) == len(b):
            same += 1
            continue
        at = min(len(a), len(b)) if at is None else at
        print('seed %d: first difference at line %d' % (seed, at))
        for j in range(max(0, at - 10), at):
            print('    ' + a[j][:200])
        print('  Tide:  ' + (a[at][:200] if at < len(a) else '(end)'))
        print('  Redis: ' + (b[at][:200] if at < len(b) else '(end)'))
    print('%d of %d programs the same' % (same, last - first))


if __name__ == '__main__':
    main()
