package io.monitorbackbone.conform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OptionsTest {

    @Test
    void defaultsToTheLocalServerWithNoTokens() {
        Options o = Options.parse(new String[0], Map.of());

        assertThat(o.base()).hasToString("http://127.0.0.1:8130");
        assertThat(o.adminToken()).isNull();
        assertThat(o.registrationToken()).isNull();
        assertThat(o.json()).isFalse();
        assertThat(o.only()).isEmpty();
    }

    @Test
    void environmentSuppliesWhatTheCommandLineDoesNotSay() {
        Map<String, String> env =
                Map.of("MP_BASE", "http://10.0.0.1:9000/", "MP_ADMIN_TOKEN", "adm", "MP_REGISTRATION_TOKEN", "reg");

        Options fromEnv = Options.parse(new String[0], env);
        Options overridden = Options.parse(new String[] {"--base", "http://other:1", "--admin-token=mine"}, env);

        assertThat(fromEnv.base()).hasToString("http://10.0.0.1:9000");
        assertThat(fromEnv.adminToken()).isEqualTo("adm");
        assertThat(fromEnv.registrationToken()).isEqualTo("reg");
        assertThat(overridden.base()).hasToString("http://other:1");
        assertThat(overridden.adminToken()).isEqualTo("mine");
    }

    @Test
    void onlyTakesCommaSeparatedIdsInAnyCase() {
        Options o = Options.parse(new String[] {"--only", "c05, C07,c20b", "--json"}, Map.of());

        assertThat(o.only()).containsExactlyInAnyOrder("C05", "C07", "C20B");
        assertThat(o.json()).isTrue();
    }

    @Test
    void unknownOptionsMissingValuesAndBadUrlsAreUsageErrors() {
        assertThatThrownBy(() -> Options.parse(new String[] {"--nope"}, Map.of()))
                .isInstanceOf(Options.UsageError.class)
                .hasMessageContaining("--nope");
        assertThatThrownBy(() -> Options.parse(new String[] {"--base"}, Map.of()))
                .isInstanceOf(Options.UsageError.class)
                .hasMessageContaining("needs a value");
        assertThatThrownBy(() -> Options.parse(new String[] {"--base", "--json"}, Map.of()))
                .isInstanceOf(Options.UsageError.class);
        assertThatThrownBy(() -> Options.parse(new String[] {"--base", "ftp://x"}, Map.of()))
                .isInstanceOf(Options.UsageError.class);
        assertThatThrownBy(() -> Options.parse(new String[] {"--json=yes"}, Map.of()))
                .isInstanceOf(Options.UsageError.class);
    }
}
