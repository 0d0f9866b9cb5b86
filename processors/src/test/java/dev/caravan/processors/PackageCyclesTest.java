package dev.caravan.processors;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * No package of {@code processors} depends on itself through another: each one can be read, tested and moved on its
 * own, and a new dependency that would close a loop (as {@code config} ↔ {@code kv}/{@code pd} once did, when the
 * records built themselves from the flag table) fails the build. Main classes only; tests may reach across.
 */
@AnalyzeClasses(packages = "dev.caravan.processors", importOptions = ImportOption.DoNotIncludeTests.class)
class PackageCyclesTest {

    @ArchTest
    static final ArchRule packagesAreFreeOfCycles = slices().matching("dev.caravan.processors.(*)..")
            .should().beFreeOfCycles();
}
