package dev.dlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.dlock.DistributedLock;
import dev.dlock.Lease;
import dev.dlock.LockClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.convert.ConversionServiceParameterValueMapper;
import org.springframework.boot.actuate.endpoint.web.EndpointMediaTypes;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpointDiscoverer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class DlockEndpointTest {
  private static final String EXPOSED = "management.endpoints.web.exposure.include=dlock";

  private static ApplicationContextRunner exposed(String server) {
    return Runners.runner().withPropertyValues("dlock.url=mem:" + server, EXPOSED);
  }

  @Test
  void listsWhatTheContextsClientHoldsWithTokenAndOwner() {
    exposed("endpoint-held").run(ctx -> {
      LockClient client = ctx.getBean(LockClient.class);
      DistributedLock report = client.lock("report");
      report.lock();
      try (Lease job = client.lock("job").acquire(Duration.ofSeconds(5))) {
        DlockEndpoint.HeldLocks held = ctx.getBean(DlockEndpoint.class).held();
        assertThat(held.client()).isEqualTo(client.id().substring(0, "dlock-".length() + 8) + "…");
        assertThat(held.locks()).extracting(DlockEndpoint.Held::name, DlockEndpoint.Held::kind,
                DlockEndpoint.Held::token, DlockEndpoint.Held::owner)
            .containsExactly(tuple("job", "exclusive", job.token(), "handle"), tuple("report", "exclusive",
                client.inspect("report").orElseThrow().token(), Thread.currentThread().getName()));
        assertThat(held.locks().get(0).remainingMillis()).isPositive()
            .isLessThanOrEqualTo(Duration.ofSeconds(30).toMillis());
      } finally {
        report.unlock();
      }
      assertThat(ctx.getBean(DlockEndpoint.class).held().locks()).isEmpty();
    });
  }

  @Test
  void inspectNamesTheHolderWhicheverClientItIsAndIsNullForAFreeLock() {
    exposed("endpoint-inspect").run(ctx -> {
      DlockEndpoint endpoint = ctx.getBean(DlockEndpoint.class);
      try (LockClient other = LockClient.connect("mem:endpoint-inspect");
          Lease lease = other.lock("job").acquire(Duration.ofSeconds(5))) {
        DlockEndpoint.Holder holder = endpoint.inspect("job");
        assertThat(holder.name()).isEqualTo("job");
        assertThat(holder.owner()).startsWith(DlockEndpoint.mask(other.id()) + ":")
            .doesNotContain(other.id());
        assertThat(holder.token()).isEqualTo(lease.token());
        assertThat(holder.remainingMillis()).isPositive();
        assertThat(endpoint.held().locks()).as("held by another client").isEmpty();
      }
      assertThat(endpoint.inspect("job")).isNull();
    });
  }

  // NONE in capitals: a runner's environment lacks the lenient enum binding of an application's.
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "not exposed           | false |",
      "exposed on the web    | true  | management.endpoints.web.exposure.include=dlock",
      "exposed, access none  | false | management.endpoints.web.exposure.include=dlock"
          + " management.endpoint.dlock.access=NONE",
      "JMX exposure, JMX off | false | management.endpoints.jmx.exposure.include=dlock",
      "JMX exposure, JMX on  | true  | management.endpoints.jmx.exposure.include=dlock"
          + " spring.jmx.enabled=true",
  })
  void theEndpointExistsOnlyWhenTheActuatorMakesItAvailable(String why, boolean expected, String properties) {
    String[] extra = properties == null ? new String[0] : properties.split(" ");
    Runners.runner().withPropertyValues("dlock.url=mem:").withPropertyValues(extra).run(ctx -> {
      assertThat(ctx).hasNotFailed();
      assertThat(ctx.containsBean("dlockEndpoint")).as(why).isEqualTo(expected);
    });
  }

  @Test
  void theActuatorMapsTheListToItsIdAndInspectToTheNameUnderIt() {
    exposed("endpoint-web").run(ctx -> {
      WebEndpointDiscoverer discoverer = new WebEndpointDiscoverer(ctx,
          new ConversionServiceParameterValueMapper(), EndpointMediaTypes.DEFAULT, List.of(), List.of(),
          List.of(), List.of(), List.of());
      ExposableWebEndpoint endpoint = discoverer.getEndpoints().stream()
          .filter(e -> e.getEndpointId().toString().equals("dlock")).findFirst().orElseThrow();
      Map<String, WebOperation> byPath = new HashMap<>();
      endpoint.getOperations().forEach(op -> byPath.put(op.getRequestPredicate().getPath(), op));
      assertThat(byPath).containsOnlyKeys("dlock", "dlock/{name}");
      WebOperation inspect = byPath.get("dlock/{name}");
      InvocationContext job = new InvocationContext(SecurityContext.NONE, Map.of("name", "job"));
      try (Lease lease = ctx.getBean(LockClient.class).lock("job").acquire(Duration.ofSeconds(5))) {
        assertThat(inspect.invoke(job)).isInstanceOfSatisfying(DlockEndpoint.Holder.class,
            h -> assertThat(h.token()).isEqualTo(lease.token()));
      }
      assertThat(inspect.invoke(job)).as("null, which the web layer answers with 404").isNull();
    });
  }

  @Test
  void theAutoConfigurationIsRegistered() {
    ClassLoader loader = getClass().getClassLoader();
    assertThat(ImportCandidates.load(AutoConfiguration.class, loader).getCandidates())
        .contains(DlockEndpointAutoConfiguration.class.getName());
  }

  @Test
  void noEndpointWithoutAClient() {
    Runners.runner().withPropertyValues(EXPOSED)
        .run(ctx -> assertThat(ctx).doesNotHaveBean(DlockEndpoint.class));
  }

  @Test
  void noEndpointAndNoFailureWithoutTheActuator() {
    Predicate<String> actuator = name -> name.startsWith("org.springframework.boot.actuate.")
        || name.startsWith("org/springframework/boot/actuate/");
    // Classes and their files both hidden, as in an application without the actuator's jars.
    exposed("endpoint-no-actuator").withClassLoader(new FilteredClassLoader(actuator)).run(ctx -> {
      assertThat(ctx).hasNotFailed().hasSingleBean(LockClient.class);
      assertThat(ctx.containsBean("dlockEndpoint")).isFalse();
    });
  }
}
