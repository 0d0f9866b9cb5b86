package dev.caravan.processors.tuning;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.camel.CamelContext;
import org.apache.camel.Expression;
import org.apache.camel.ManagementStatisticsLevel;
import org.apache.camel.Processor;
import org.apache.camel.model.ChoiceDefinition;
import org.apache.camel.model.InterceptDefinition;
import org.apache.camel.model.LoadBalanceDefinition;
import org.apache.camel.model.ModelCamelContext;
import org.apache.camel.model.ModelLifecycleStrategySupport;
import org.apache.camel.model.MulticastDefinition;
import org.apache.camel.model.OnExceptionDefinition;
import org.apache.camel.model.ProcessDefinition;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.model.RouteConfigurationDefinition;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.SetPropertyDefinition;
import org.apache.camel.model.TryDefinition;
import org.apache.camel.model.language.ConstantExpression;
import org.apache.camel.processor.SetPropertyProcessor;
import org.apache.camel.reifier.language.ExpressionReifier;
import org.apache.camel.spi.ManagementAgent;
import org.apache.camel.support.LanguageSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs consecutive steps of the gateway's own as one Camel step ({@link FusedSteps}), in the order the YAML gives them.
 *
 * <p>Why: Camel runs each step of a route inside a channel of its own (its error handler, its advices) and as a task
 * of its reactive executor, scheduled again when the step is done. At 25 nodes a request, that machinery, not the
 * steps' own work, is the largest share of Camel's CPU per request (docs/design/request-path.md, "Per-request cost").
 * A run of steps needs it once.
 *
 * <p>What is fused: in any list of steps run in a row (a route's, a {@code when}'s, an {@code otherwise}'s, a loop's,
 * a {@code doTry}'s, ...; not a multicast's or a load balancer's branches), two or more consecutive
 * {@code - process: {ref: NAME}} where NAME is a bean the gateway binds (the gateway's bean names), and the
 * {@code - setProperty: {name: NAME, constant: VALUE}} between them (a literal name and value: no {@code ${...}} and
 * no {@code {{...}}} placeholder, which a route template resolves only when it builds the route), each without an id
 * of its own, not disabled and keeping the route's error handler. A fused {@code setProperty} is Camel's own
 * processor for it, built as Camel builds it. Anything else between them (a {@code filter}, a {@code to}, a step of
 * the application's own) ends the run, and stays as it is. The route
 * definitions are rewritten when they are added to the context (or, for those already there, when the gateway is
 * installed), before Camel builds them; the YAML files are untouched.
 *
 * <p>What a request sees does not change: the run stops where Camel's pipeline stops (a failure, a handled error, a
 * route stop), and a failure goes to the error handler around the run, which is the one that was around each of its
 * steps (the route's {@code onException}, or the enclosing {@code doTry}). What changes is what Camel's per-step views
 * show: one node {@code steps[a, b, c]} instead of three, and what Camel does around each step it does once around the
 * run. So nothing is fused while Camel's tracer, backlog tracer, debugger, message history, per-processor JMX
 * statistics, an intercept strategy, an {@code intercept} or an {@code onException} that continues is on
 * ({@link #perStepView}); the log says so once.
 */
final class StepFusion extends ModelLifecycleStrategySupport {

    private static final Logger LOG = LoggerFactory.getLogger(StepFusion.class);

    private final CamelContext context;
    private final Map<String, ?> beans;
    private boolean toldWhyNot;

    private StepFusion(CamelContext context, Map<String, ?> beans) {
        this.context = context;
        this.beans = beans;
    }

    /**
     * Fuses the steps of the routes the context holds but has not built yet, and of every route added to it later.
     *
     * @param beans the gateway's beans by name: only steps naming one of them are fused
     */
    static void install(CamelContext context, Map<String, ?> beans) {
        ModelCamelContext model = (ModelCamelContext) context;
        StepFusion fusion = new StepFusion(context, beans);
        for (RouteDefinition route : model.getRouteDefinitions()) {
            if (route.getRouteId() == null || context.getRoute(route.getRouteId()) == null) {
                fusion.onAddRouteDefinition(route);
            }
        }
        model.addModelLifecycleStrategy(fusion);
    }

    @Override
    public void onAddRouteDefinition(RouteDefinition route) {
        String view = perStepView(route);
        if (view == null) {
            fuse(route.getOutputs());
        } else if (!toldWhyNot) {
            toldWhyNot = true;
            LOG.info("Route steps are not fused while {} is on: each step is a Camel node of its own "
                    + "(docs/architecture.md, \"Request path and route graph\")", view);
        }
    }

    /**
     * Which of Camel's features that act on, show or count each step of {@code route} is on, or null for none:
     * the tracer, the backlog tracer, the debugger, message history, per-processor JMX statistics, an intercept
     * strategy of the context's, an {@code intercept}, or an {@code onException} that continues after the failed step
     * (of the route's or of a route configuration's: with a run, it would continue after the run). A redelivery needs
     * nothing here: a run starts again at the step that failed ({@link FusedSteps}).
     */
    String perStepView(RouteDefinition route) {
        if (context.isTracing() || context.isBacklogTracing()) {
            return "Camel's tracer";
        }
        if (context.isDebugging()) {
            return "Camel's debugger";
        }
        if (context.isMessageHistory()) {
            return "Camel's message history";
        }
        ManagementAgent agent = context.getManagementStrategy().getManagementAgent();
        ManagementStatisticsLevel level = agent == null ? null : agent.getStatisticsLevel();
        if (level == ManagementStatisticsLevel.Default || level == ManagementStatisticsLevel.Extended) {
            return "JMX statistics at level " + level;
        }
        if (!context.getCamelContextExtension().getInterceptStrategies().isEmpty()) {
            return "an intercept strategy";
        }
        List<RouteConfigurationDefinition> configurations =
                ((ModelCamelContext) context).getRouteConfigurationDefinitions();
        if (route.getOutputs().stream().anyMatch(InterceptDefinition.class::isInstance)
                || configurations.stream().anyMatch(c -> !c.getIntercepts().isEmpty())) {
            return "an intercept";
        }
        boolean continued = route.getOutputs().stream().anyMatch(StepFusion::continues)
                || configurations.stream().flatMap(c -> c.getOnExceptions().stream()).anyMatch(StepFusion::continues);
        return continued ? "an onException that continues" : null;
    }

    /** An onException that continues routing after the step that failed (Camel's {@code continued}). */
    private static boolean continues(ProcessorDefinition<?> step) {
        return step instanceof OnExceptionDefinition onException
                && (onException.getContinued() != null || onException.getContinuedPolicy() != null);
    }

    private void fuse(List<ProcessorDefinition<?>> steps) {
        List<ProcessorDefinition<?>> rewritten = new ArrayList<>(steps.size());
        List<ProcessorDefinition<?>> run = new ArrayList<>();
        for (ProcessorDefinition<?> step : steps) {
            if (fusable(step) || constantProperty(step)) {
                run.add(step);
                continue;
            }
            end(run, rewritten);
            rewritten.add(step);
            inside(step);
        }
        end(run, rewritten);
        if (rewritten.size() != steps.size()) {
            steps.clear();
            steps.addAll(rewritten);
        }
    }

    /**
     * The steps nested in {@code step}: a choice's branches, a loop's or a doTry's body, ... A multicast's or a load
     * balancer's outputs are alternatives or parallel branches, not steps in a row, so they are never fused together.
     */
    private void inside(ProcessorDefinition<?> step) {
        if (step instanceof ChoiceDefinition choice) {
            choice.getWhenClauses().forEach(when -> fuse(when.getOutputs()));
            if (choice.getOtherwise() != null) {
                fuse(choice.getOtherwise().getOutputs());
            }
        } else if (step instanceof MulticastDefinition || step instanceof LoadBalanceDefinition) {
            step.getOutputs().forEach(this::inside); // branches, not a sequence: each branch's own steps only
        } else if (step instanceof TryDefinition doTry) {
            List<ProcessorDefinition<?>> body = doTry.getOutputs();
            int before = body.size();
            fuse(body);
            if (body.size() != before) {
                doTry.setOutputs(new ArrayList<>(body)); // a doTry keeps its steps apart from its catches: recomputed
            }
            doTry.getCatchClauses().forEach(c -> fuse(c.getOutputs()));
            if (doTry.getFinallyClause() != null) {
                fuse(doTry.getFinallyClause().getOutputs());
            }
        } else if (step.getOutputs() != null) {
            fuse(step.getOutputs());
        }
    }

    private void end(List<ProcessorDefinition<?>> run, List<ProcessorDefinition<?>> rewritten) {
        if (run.size() == 1) {
            rewritten.add(run.get(0));
        } else if (run.size() > 1) {
            List<String> names = new ArrayList<>(run.size());
            List<Processor> processors = new ArrayList<>(run.size());
            for (ProcessorDefinition<?> step : run) {
                if (step instanceof SetPropertyDefinition set) {
                    names.add("setProperty[" + set.getName() + "]");
                    processors.add(setProperty(set));
                } else {
                    String ref = ((ProcessDefinition) step).getRef();
                    names.add(ref);
                    processors.add((Processor) beans.get(ref));
                }
            }
            ProcessDefinition fused = new ProcessDefinition(new FusedSteps(names, processors));
            fused.setParent(run.get(0).getParent());
            rewritten.add(fused);
        }
        run.clear();
    }

    private boolean fusable(ProcessorDefinition<?> step) {
        return step instanceof ProcessDefinition p && p.getRef() != null && plain(p)
                && beans.get(p.getRef()) instanceof Processor;
    }

    /** A {@code setProperty} of a literal constant to a literal name. */
    private static boolean constantProperty(ProcessorDefinition<?> step) {
        return step instanceof SetPropertyDefinition set && plain(set) && literal(set.getName())
                && set.getExpression() instanceof ConstantExpression constant && literal(constant.getExpression());
    }

    /** No id of its own, not disabled, the route's error handler. */
    private static boolean plain(ProcessorDefinition<?> step) {
        return !step.hasCustomIdAssigned() && step.getDisabled() == null
                && !Boolean.FALSE.equals(step.getInheritErrorHandler());
    }

    private static boolean literal(String text) {
        return text != null && !LanguageSupport.hasSimpleFunction(text) && !text.contains("{{");
    }

    /** Camel's processor for a {@code setProperty}, its name and value expressions built as Camel's reifier builds them. */
    private Processor setProperty(SetPropertyDefinition set) {
        Expression value = ExpressionReifier.reifier(context, set.getExpression()).createExpression();
        Expression name = context.resolveLanguage("constant").createExpression(set.getName());
        value.init(context);
        name.init(context);
        return new SetPropertyProcessor(name, value);
    }
}
