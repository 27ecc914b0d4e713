package io.monitorbackbone.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TokensTest {

    @Test
    void aTokenCarries192RandomBitsInBase64Url() {
        String token = Tokens.mint();

        assertThat(token).matches("[A-Za-z0-9_-]{32}");
        assertThat(Base64.getUrlDecoder().decode(token)).hasSize(24);
    }

    @Test
    void tokensDoNotRepeat() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            seen.add(Tokens.mint());
        }
        assertThat(seen).hasSize(1000);
    }

    @Test
    void onlyTheHashIsNeededToRecogniseAToken() {
        String token = Tokens.mint();
        String hash = Tokens.hash(token);

        assertThat(hash).matches("[0-9a-f]{64}").doesNotContain(token);
        assertThat(Tokens.matches(token, hash)).isTrue();
        assertThat(Tokens.matches(Tokens.mint(), hash)).isFalse();
        assertThat(Tokens.matches(null, hash)).isFalse();
        assertThat(Tokens.matches(token, null)).isFalse();
    }
}
