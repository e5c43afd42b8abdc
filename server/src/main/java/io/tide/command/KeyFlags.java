package io.tide.command;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Thread-safe (immutable after class initialisation). The flags of each key of a command, as Redis 7.0's key specs
 * give them (COMMAND INFO's {@code key_specs}: RW/RO/OW/RM and access/insert/delete/update), for the commands whose
 * keys Tide finds by their legacy range or key finder: the first key gets the first spec's flags, the next the next
 * spec's, and the last spec's flags go to every key after (LMOVE's source and destination, SINTERSTORE's destination
 * and sources, MSET's keys). COMMAND GETKEYSANDFLAGS reports them and the ACL checks a key against a read-only or
 * write-only pattern by them (a key read needs {@code %R}, one written {@code %W}; one only looked at, as SCARD's,
 * needs either). Commands with a getkeys function of their own (EVAL, FCALL, SORT, SET, BITFIELD) decide per call.
 * {@code KeyFlagsVsRedisTest} keeps this table equal to redis-server's.
 */
final class KeyFlags {

    private KeyFlags() {}

    private static final String TABLE = """
            append RW insert
            bitcount RO access
            bitfield_ro RO access
            bitop OW update;RO access
            bitpos RO access
            blmove RW access delete;RW insert
            blmpop RW access delete
            blpop RW access delete
            brpop RW access delete
            brpoplpush RW access delete;RW insert
            bzmpop RW access delete
            bzpopmax RW access delete
            bzpopmin RW access delete
            copy RO access;OW update
            decr RW access update
            decrby RW access update
            del RM delete
            dump RO access
            exists RO
            expire RW update
            expireat RW update
            expiretime RO access
            geoadd RW update
            geodist RO access
            geohash RO access
            geopos RO access
            georadius RO access;OW update;OW update
            georadius_ro RO access
            georadiusbymember RO access;OW update;OW update
            georadiusbymember_ro RO access
            geosearch RO access
            geosearchstore OW update;RO access
            get RO access
            getbit RO access
            getdel RW access delete
            getex RW access update
            getrange RO access
            getset RW access update
            hdel RW delete
            hexists RO
            hget RO access
            hgetall RO access
            hincrby RW access update
            hincrbyfloat RW access update
            hkeys RO access
            hlen RO
            hmget RO access
            hmset RW update
            hrandfield RO access
            hscan RO access
            hset RW update
            hsetnx RW insert
            hstrlen RO
            hvals RO access
            incr RW access update
            incrby RW access update
            incrbyfloat RW access update
            lcs RO access
            lindex RO access
            linsert RW insert
            llen RO
            lmove RW access delete;RW insert
            lmpop RW access delete
            lpop RW access delete
            lpos RO access
            lpush RW insert
            lpushx RW insert
            lrange RO access
            lrem RW delete
            lset RW update
            ltrim RW delete
            memory|usage RO
            mget RO access
            migrate RW access delete;RW access delete incomplete
            move RW access update
            mset OW update
            msetnx OW insert
            object|encoding RO
            object|freq RO
            object|idletime RO
            object|refcount RO
            persist RW update
            pexpire RW update
            pexpireat RW update
            pexpiretime RO access
            pfadd RW insert
            pfcount RW access
            pfdebug RW access
            pfmerge RW access insert;RO access
            psetex OW update
            pttl RO access
            rename RW access delete;OW update
            renamenx RW access delete;OW insert
            restore OW update
            restore-asking OW update
            rpop RW access delete
            rpoplpush RW access delete;RW insert
            rpush RW insert
            rpushx RW insert
            sadd RW insert
            scard RO
            sdiff RO access
            sdiffstore OW update;RO access
            setbit RW access update
            setex OW update
            setnx OW insert
            setrange RW update
            sinter RO access
            sintercard RO access
            sinterstore RW update;RO access
            sismember RO
            smembers RO access
            smismember RO access
            smove RW access delete;RW insert
            spop RW access delete
            spublish not_key
            srandmember RO access
            srem RW delete
            sscan RO access
            ssubscribe not_key
            strlen RO
            substr RO access
            sunion RO access
            sunionstore OW update;RO access
            sunsubscribe not_key
            touch RO
            ttl RO access
            type RO
            unlink RM delete
            watch RO
            xack RW update
            xadd RW update
            xautoclaim RW delete
            xclaim RW update
            xdel RW delete
            xgroup|create RW insert
            xgroup|createconsumer RW insert
            xgroup|delconsumer RW delete
            xgroup|destroy RW delete
            xgroup|setid RW update
            xinfo|consumers RO access
            xinfo|groups RO access
            xinfo|stream RO access
            xlen RO
            xpending RO access
            xrange RO access
            xread RO access
            xreadgroup RO access
            xrevrange RO access
            xsetid RW update
            xtrim RW delete
            zadd RW update
            zcard RO
            zcount RO access
            zdiff RO access
            zdiffstore OW update;RO access
            zincrby RW access update
            zinter RO access
            zintercard RO access
            zinterstore OW update;RO access
            zlexcount RO access
            zmpop RW access delete
            zmscore RO access
            zpopmax RW access delete
            zpopmin RW access delete
            zrandmember RO access
            zrange RO access
            zrangebylex RO access
            zrangebyscore RO access
            zrangestore OW update;RO access
            zrank RO access
            zrem RW delete
            zremrangebylex RW delete
            zremrangebyrank RW delete
            zremrangebyscore RW delete
            zrevrange RO access
            zrevrangebylex RO access
            zrevrangebyscore RO access
            zrevrank RO access
            zscan RO access
            zscore RO access
            zunion RO access
            zunionstore OW update;RO access
            """;

    private static final Map<String, List<List<String>>> BY_NAME = parse();

    private static Map<String, List<List<String>>> parse() {
        Map<String, List<List<String>>> m = new HashMap<>();
        for (String line : TABLE.strip().split("\n")) {
            line = line.strip();
            int space = line.indexOf(' ');
            List<List<String>> specs = new ArrayList<>();
            for (String spec : line.substring(space + 1).split(";")) specs.add(List.of(spec.split(" ")));
            m.put(line.substring(0, space), List.copyOf(specs));
        }
        return Map.copyOf(m);
    }

    /** The per-key flags of the command called {@code fullName} ("config|get" for a subcommand), or null. */
    static List<List<String>> of(String fullName) {
        return BY_NAME.get(fullName);
    }
}
