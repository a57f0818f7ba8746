package dev.medallion.testing;

import java.lang.reflect.Method;
import org.apache.beam.sdk.testing.TestPipeline;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.runner.Description;
import org.junit.runners.model.Statement;

/**
 * Runs a JUnit 5 test method the way Beam's {@link TestPipeline} rule runs a JUnit 4 one: the test
 * receives a fresh {@code TestPipeline} parameter, and the rule's checks (the pipeline was run, no
 * abandoned PAsserts) apply after the method returns.
 */
public class BeamPipelineExtension implements ParameterResolver, InvocationInterceptor {
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(BeamPipelineExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
    return p.getParameter().getType() == TestPipeline.class;
  }

  @Override
  public Object resolveParameter(ParameterContext p, ExtensionContext c) {
    return c.getStore(NS).getOrComputeIfAbsent("pipeline", k -> TestPipeline.create());
  }

  @Override
  public void interceptTestMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> invocationContext,
      ExtensionContext context)
      throws Throwable {
    runWithRule(invocation, context);
  }

  /** A parameterized test: each of its runs gets a fresh pipeline and the rule's checks. */
  @Override
  public void interceptTestTemplateMethod(
      Invocation<Void> invocation,
      ReflectiveInvocationContext<Method> invocationContext,
      ExtensionContext context)
      throws Throwable {
    runWithRule(invocation, context);
  }

  private static void runWithRule(Invocation<Void> invocation, ExtensionContext context)
      throws Throwable {
    TestPipeline pipeline = context.getStore(NS).get("pipeline", TestPipeline.class);
    if (pipeline == null) {
      invocation.proceed();
      return;
    }
    Statement body =
        new Statement() {
          @Override
          public void evaluate() throws Throwable {
            invocation.proceed();
          }
        };
    pipeline
        .apply(
            body,
            Description.createTestDescription(
                context.getRequiredTestClass(), context.getRequiredTestMethod().getName()))
        .evaluate();
  }
}
