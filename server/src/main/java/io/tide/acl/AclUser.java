package io.tide.acl;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One ACL user as Redis 7 keeps it: its flags ({@code on}/{@code off}, {@code nopass}, the payload sanitizing flags),
 * its passwords as SHA-256 hex digests, its root selector and its other selectors. Immutable once published by
 * {@link Acl} (a change is made on a {@link #copy} and replaces the user), so any thread may read it.
 */
public final class AclUser {

    final String name;
    boolean enabled;
    boolean nopass;
    boolean sanitizePayload;
    boolean skipSanitizePayload;
    Set<String> passwords = new LinkedHashSet<>();
    AclSelector root = new AclSelector();
    List<AclSelector> selectors = new ArrayList<>();

    AclUser(String name) {
        this.name = name;
    }

    AclUser copy() {
        AclUser u = new AclUser(name);
        u.enabled = enabled;
        u.nopass = nopass;
        u.sanitizePayload = sanitizePayload;
        u.skipSanitizePayload = skipSanitizePayload;
        u.passwords = new LinkedHashSet<>(passwords);
        u.root = root.copy();
        for (AclSelector s : selectors) u.selectors.add(s.copy());
        return u;
    }

    public String name() { return name; }
    public boolean enabled() { return enabled; }
    public boolean nopass() { return nopass; }

    /** Whether no check can refuse this user anything (its root selector allows every command, key and channel). */
    boolean unrestricted() {
        return root.unrestricted();
    }
}
