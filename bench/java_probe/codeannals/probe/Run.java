package codeannals.probe;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the test classes a file names (one a line) on the JUnit Platform (Jupiter's and Vintage's engines, whichever
 * the class path has) and writes which counted methods each test ran:
 * {@code M id method}, {@code T class declaring-class method outcome ids} for a test (every run of a parameterized
 * test together), {@code C class ids} for what ran in a test class but in none of its tests (its static
 * initialization, {@code @BeforeAll}, {@code @BeforeClass}): that runs for each of its tests run alone.
 */
public final class Run implements TestExecutionListener {
    private final Map<String, TreeSet<Integer>> tests = new LinkedHashMap<>();
    private final Map<String, String> outcomes = new LinkedHashMap<>();
    private final Map<String, TreeSet<Integer>> classes = new LinkedHashMap<>();
    private final List<String> classStack = new ArrayList<>();

    public static void main(String[] args) throws IOException {
        List<String> names = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        for (String name : names) {
            if (!name.isBlank()) {
                request.selectors(DiscoverySelectors.selectClass(name.strip()));
            }
        }
        Run run = new Run();
        LauncherDiscoveryRequest built = request.build();
        LauncherFactory.create().execute(built, run);
        run.write(Path.of(args[1]));
        System.exit(0);  // a test's non-daemon thread must not keep the JVM
    }

    @Override
    public void executionStarted(TestIdentifier id) {
        Optional<TestSource> source = id.getSource();
        if (id.isTest()) {
            outside(Probe.drain());
        } else if (source.isPresent() && source.get() instanceof ClassSource) {
            outside(Probe.drain());
            classStack.add(((ClassSource) source.get()).getClassName());
        }
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        Optional<TestSource> source = id.getSource();
        List<Integer> ran = Probe.drain();
        if (id.isTest() && source.isPresent() && source.get() instanceof MethodSource) {
            MethodSource method = (MethodSource) source.get();
            String name = method.getMethodName().replaceAll("\\[.*$", "");  // JUnit 4's `test[0]`
            String key = method.getClassName() + " " + declaring(method.getClassName(), name) + " " + name;
            tests.computeIfAbsent(key, k -> new TreeSet<>()).addAll(ran);
            String was = outcomes.get(key);
            String now = result.getStatus().name();
            outcomes.put(key, was == null || was.equals(now) ? now : "MIXED");
            result.getThrowable().ifPresent(t -> System.err.println("not passed: " + key + ": " + t));
        } else {
            outside(ran);
        }
        if (!id.isTest() && source.isPresent() && source.get() instanceof ClassSource && !classStack.isEmpty()) {
            classStack.remove(classStack.size() - 1);
        }
    }

    private void outside(List<Integer> ran) {
        if (!classStack.isEmpty() && !ran.isEmpty()) {
            classes.computeIfAbsent(classStack.get(classStack.size() - 1), k -> new TreeSet<>()).addAll(ran);
        }
    }

    /** The class declaring the test method: a superclass's for a test inherited. */
    private static String declaring(String className, String method) {
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            for (Class<?> c = Class.forName(className, false, loader); c != null; c = c.getSuperclass()) {
                for (Method m : c.getDeclaredMethods()) {
                    if (m.getName().equals(method)) {
                        return c.getName();
                    }
                }
            }
        } catch (ClassNotFoundException | LinkageError e) {
            // the class as the engine named it
        }
        return className;
    }

    private void write(Path out) throws IOException {
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
            List<String> methods = Probe.methods();
            for (int id = 0; id < methods.size(); id++) {
                w.println("M\t" + id + "\t" + methods.get(id));
            }
            for (Map.Entry<String, TreeSet<Integer>> t : tests.entrySet()) {
                String test = t.getKey().replace(' ', '\t');
                w.println("T\t" + test + "\t" + outcomes.get(t.getKey()) + "\t" + join(t.getValue()));
            }
            for (Map.Entry<String, TreeSet<Integer>> c : classes.entrySet()) {
                w.println("C\t" + c.getKey() + "\t" + join(c.getValue()));
            }
        }
    }

    private static String join(TreeSet<Integer> ids) {
        StringBuilder out = new StringBuilder();
        for (int id : ids) {
            out.append(out.length() == 0 ? "" : ",").append(id);
        }
        return out.toString();
    }
}
