package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import org.junit.jupiter.api.Test;

class RequestListsTest {

    /** One list per thread, reused; a read that starts while the list is taken gets its own; a list comes back empty. */
    @Test
    void aTakenListIsNeverHandedOutTwice() {
        ArrayList<Object> first = RequestLists.take();
        first.add("GET");
        ArrayList<Object> nested = RequestLists.take();
        assertThat(nested).isNotSameAs(first).isEmpty();
        RequestLists.give(nested);
        RequestLists.give(first);
        assertThat(first).isEmpty();
        ArrayList<Object> again = RequestLists.take();
        assertThat(again).isSameAs(first);
        assertThat(RequestLists.take()).isNotSameAs(again);
        RequestLists.give(again);
    }
}
