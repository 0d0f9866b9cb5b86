import java.io.PrintWriter;
import java.util.regex.Pattern;

import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.MethodFilter;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Runs one JUnit test method on the class path it is started with, for fuzz-campaign.sh's direct mode:
 * {@code java -cp TEST_CLASSPATH FuzzLaunch.java CLASS METHOD}. JUnit configuration parameters (Jazzer's included) come
 * from system properties. Exit 1 when the method failed or did not run.
 */
public class FuzzLaunch {
    public static void main(String[] args) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(args[0])).filters(EngineFilter.includeEngines("junit-jupiter"),
                        MethodFilter.includeMethodNamePatterns(Pattern.quote(args[0] + "#" + args[1]) + "(\\(.*)?"))
                .build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        summary.printTo(new PrintWriter(System.out));
        summary.printFailuresTo(new PrintWriter(System.out), 50);
        System.exit(summary.getTotalFailureCount() == 0 && summary.getTestsSucceededCount() > 0 ? 0 : 1);
    }
}
