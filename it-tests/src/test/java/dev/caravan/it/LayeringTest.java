package dev.caravan.it;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The "may import" table of docs/architecture.md ("Modules"), enforced on the main classes of every module: dependencies
 * point one way, {@code policies ← tokens ← processors (with components; its features, then the gateway package that
 * assembles them) ← kubernetes, sync ← app}; the routing core knows nothing
 * of Camel, Vert.x or HTTP; the simulator imports no Caravan code (it emulates engines, so it must never agree with the
 * gateway by sharing the code under test); benchmarks and ITs are leaves. Maven already forbids a module from importing
 * one it does not depend on; these rules also catch a dependency added to a pom that reverses the direction, and the
 * core's freedom from frameworks, which no pom expresses. A new module gets its rule here.
 */
@AnalyzeClasses(packages = "dev.caravan", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    private static final String POLICIES = "dev.caravan.policies..";
    private static final String TOKENS = "dev.caravan.tokens..";
    private static final String COMPONENTS = "dev.caravan.components..";
    private static final String PROCESSORS = "dev.caravan.processors..";
    private static final String GATEWAY = "dev.caravan.gateway..";
    private static final String KUBERNETES = "dev.caravan.kubernetes..";
    private static final String SYNC = "dev.caravan.sync..";
    private static final String SIM = "dev.caravan.sim..";
    private static final String APP = "dev.caravan.app..";
    private static final String BENCH = "dev.caravan.bench..";
    private static final String JMH = "dev.caravan.jmh..";
    private static final String IT = "dev.caravan.it..";

    @ArchTest
    static final ArchRule theRoutingCoreIsPlainJava = classes().that().resideInAPackage(POLICIES)
            .should().onlyDependOnClassesThat().resideInAnyPackage(POLICIES, "java..", "javax.crypto..", "org.slf4j..",
                    "net.openhft..")
            .because("policies is the pure-Java routing core: no Camel, no Vert.x, no HTTP (docs/architecture.md)");

    @ArchTest
    static final ArchRule promptTokensAreALibrary = noClasses().that().resideInAPackage(TOKENS)
            .should().dependOnClassesThat().resideInAnyPackage(COMPONENTS, PROCESSORS, GATEWAY, KUBERNETES, SYNC, SIM,
                    APP, BENCH, JMH, IT, "org.apache.camel..", "io.vertx..", "io.micrometer..")
            .because("the tokens module renders and encodes prompts; the gateway's step that uses it is in processors");

    @ArchTest
    static final ArchRule componentsStandAlone = noClasses().that().resideInAPackage(COMPONENTS)
            .should().dependOnClassesThat().resideInAnyPackage(POLICIES, TOKENS, PROCESSORS, GATEWAY, KUBERNETES,
                    SYNC, SIM, APP, BENCH, JMH, IT)
            .because("our Camel components are usable apart from the gateway");

    @ArchTest
    static final ArchRule processorsDoNotReachUp = noClasses().that().resideInAPackage(PROCESSORS)
            .should().dependOnClassesThat().resideInAnyPackage(GATEWAY, KUBERNETES, SYNC, SIM, APP, BENCH, JMH, IT)
            .because("the features are the steps; the gateway package assembles them");

    @ArchTest
    static final ArchRule theGatewayLibraryTakesNoOptionalModuleOrApplication = noClasses().that()
            .resideInAPackage(GATEWAY)
            .should().dependOnClassesThat().resideInAnyPackage(KUBERNETES, SYNC, SIM, APP, BENCH, JMH, IT)
            .because("the gateway package is the embeddable library's entry: optional modules join it through "
                    + "OptionalFeature");

    @ArchTest
    static final ArchRule kubernetesIsAnExtensionOfTheGateway = noClasses().that().resideInAPackage(KUBERNETES)
            .should().dependOnClassesThat().resideInAnyPackage(SYNC, SIM, APP, BENCH, JMH, IT)
            .because("discovery is an optional module the application adds");

    @ArchTest
    static final ArchRule syncIsAnExtensionOfTheGateway = noClasses().that().resideInAPackage(SYNC)
            .should().dependOnClassesThat().resideInAnyPackage(KUBERNETES, SIM, APP, BENCH, JMH, IT)
            .because("replica sync is an optional module the application adds; an embedder without it carries no "
                    + "Hazelcast");

    @ArchTest
    static final ArchRule theSimulatorImportsNoCaravanCode = noClasses().that().resideInAPackage(SIM)
            .should().dependOnClassesThat().resideInAnyPackage(POLICIES, TOKENS, COMPONENTS, PROCESSORS, GATEWAY,
                    KUBERNETES, SYNC, APP, BENCH, JMH, IT)
            .because("the simulator emulates engines; agreement with the gateway comes from real artifacts and "
                    + "independently derived vectors, never from shared code");

    @ArchTest
    static final ArchRule theApplicationIsNotABenchmark = noClasses().that().resideInAPackage(APP)
            .should().dependOnClassesThat().resideInAnyPackage(BENCH, JMH, IT);

    @ArchTest
    static final ArchRule benchmarksUseNoTestFixtures = noClasses().that().resideInAnyPackage(BENCH, JMH)
            .should().dependOnClassesThat().resideInAnyPackage(APP, IT)
            .because("caravan-bench runs the gateway as an embedder does, not through the application or IT fixtures");
}
