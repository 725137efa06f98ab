package codeannals.probe;

import java.util.ArrayList;
import java.util.List;

/** The methods the instrumented classes have, by number, and which of them ran since the last {@link #drain}. */
public final class Probe {
    private static final List<String> METHODS = new ArrayList<>();
    private static final java.util.Map<String, Integer> IDS = new java.util.HashMap<>();
    // the most methods counted: a project's main code has a few thousand
    private static final boolean[] RAN = new boolean[1 << 20];

    private Probe() {}

    public static void hit(int id) {
        RAN[id] = true;
    }

    static synchronized int id(String method) {
        return IDS.computeIfAbsent(method, m -> {
            METHODS.add(m);
            return METHODS.size() - 1;
        });
    }

    static synchronized List<String> methods() {
        return new ArrayList<>(METHODS);
    }

    /** The numbers of the methods that ran since the last call, the record cleared. */
    static synchronized List<Integer> drain() {
        List<Integer> ran = new ArrayList<>();
        for (int id = 0; id < METHODS.size(); id++) {
            if (RAN[id]) {
                RAN[id] = false;
                ran.add(id);
            }
        }
        return ran;
    }
}
