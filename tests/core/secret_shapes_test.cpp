#include "core/secret_shapes.h"

#include <gtest/gtest.h>

namespace kev {
namespace {

TEST(SecretShapes, KnownTokenShapesAreRedacted) {
  const std::string secrets[] = {
      "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX",
      "ghp_0123456789abcdefghijABCDEFGHIJ",
      "github_pat_11ABCDEFG0123456789_abcdefXYZ",
      "AKIAIOSFODNN7EXAMPLE",
      "xoxb-1234567890-abcdefghij",
      "hf_abcdefghijklmnopqrstuvwxyz",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
  };
  for (const auto& secret : secrets) {
    const std::string text = "k.cu(3): error: identifier \"" + secret + "\" is undefined";
    const std::string clean = scrub_secret_shapes(text);
    EXPECT_EQ(clean.find(secret), std::string::npos) << clean;
    EXPECT_NE(clean.find("[redacted]"), std::string::npos) << clean;
    EXPECT_NE(clean.find("error: identifier"), std::string::npos) << clean;
  }
}

TEST(SecretShapes, ValuesOfSecretNamesAreRedactedWhateverTheirShape) {
  const std::string text =
      "OPENAI_API_KEY=plain-value-1\nDB_PASSWORD: hunter2\n\"access_token\": \"abc.def\"\n"
      "Authorization: Bearer abc.def.ghi\nBLOCK=256\n";
  const std::string clean = scrub_secret_shapes(text);
  for (const char* secret : {"plain-value-1", "hunter2", "abc.def", "abc.def.ghi"})
    EXPECT_EQ(clean.find(secret), std::string::npos) << secret << " in " << clean;
  EXPECT_NE(clean.find("BLOCK=256"), std::string::npos) << clean;
  EXPECT_NE(clean.find("OPENAI_API_KEY=[redacted]"), std::string::npos) << clean;
}

TEST(SecretShapes, PrivateKeyBlocksAndOrdinaryCompilerOutput) {
  const std::string key =
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE "
      "KEY-----\n";
  EXPECT_EQ(scrub_secret_shapes("x\n" + key + "y").find("b3BlbnNz"), std::string::npos);
  const std::string log = "kernel.cu(12): error: expected a \";\"\n  float sk = x[i];\n";
  EXPECT_EQ(scrub_secret_shapes(log), log);
}

TEST(SecretShapes, TheExcerptIsCutAfterScrubbing) {
  const std::string text = std::string(95, 'x') + " sk-ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const std::string cut = scrubbed_excerpt(text, 100);
  EXPECT_EQ(cut.find("sk-ABC"), std::string::npos) << cut;
  EXPECT_NE(cut.find("more characters"), std::string::npos) << cut;
}

}  // namespace
}  // namespace kev
