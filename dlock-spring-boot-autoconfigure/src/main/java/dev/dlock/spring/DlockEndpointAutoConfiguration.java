package dev.dlock.spring;

import dev.dlock.LockClient;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Adds {@link DlockEndpoint} (actuator endpoint {@code dlock}) when Spring Boot's actuator is
 * present, a {@link LockClient} bean exists, and the endpoint is available by the actuator's rules:
 * its access is not {@code none} and it is exposed, such as by
 * {@code management.endpoints.web.exposure.include=dlock}.
 *
 * <p>Why its own auto-configuration after {@link DlockAutoConfiguration}: the condition on the
 * client bean only sees that bean once the client's configuration has been read. Why the endpoint
 * condition sits on the bean method: Spring reads a method's conditions only once its class's
 * conditions passed, so without the actuator the class is skipped before anything asks for the
 * actuator's condition class.
 */
@AutoConfiguration(after = DlockAutoConfiguration.class)
@ConditionalOnClass(name =
    "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint")
@ConditionalOnBean(LockClient.class)
public class DlockEndpointAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint
  DlockEndpoint dlockEndpoint(LockClient client) {
    return new DlockEndpoint(client);
  }
}
