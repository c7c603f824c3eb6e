# Homebrew formula for vouch, built from the crate published on crates.io.
# This is the template: the release workflow (.github/workflows/release.yml)
# writes each release's `url` and `sha256` (of the `.crate` that `cargo
# publish` uploads) and attaches the result to the release as git-vouch.rb:
# `brew install --formula ./git-vouch.rb`.
class GitVouch < Formula
  desc "Git guard: a second AI opinion from another provider before history is destroyed"
  homepage "https://github.com/git-vouch/git-vouch"
  url "https://static.crates.io/crates/git-vouch/git-vouch-0.1.0.crate"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license any_of: ["MIT", "Apache-2.0"]

  depends_on "rust" => :build

  def install
    # The crate unpacks into git-vouch-<version>/.
    cd "git-vouch-#{version}" if File.directory?("git-vouch-#{version}")
    # std_cargo_args is `--locked --root=<prefix> --path=.`: cargo refuses
    # `--locked` given twice (`.ci/run` runs this argument list).
    system "cargo", "install", *std_cargo_args
    generate_completions_from_executable(bin/"git-vouch", "completions")
    # `git vouch --help` is `man git-vouch`: Homebrew's share/man, beside its bin.
    (man1/"git-vouch.1").write Utils.safe_popen_read(bin/"git-vouch", "man")
  end

  def caveats
    <<~EOS
      In each repository to guard:  git vouch install
      For an AI coding agent:       git vouch agent install claude   (or codex, gemini, cursor, copilot, opencode)
      Then set an API key of another vendor than your agent's (ANTHROPIC_API_KEY,
      OPENAI_API_KEY or GEMINI_API_KEY) and run `git vouch doctor`.
    EOS
  end

  test do
    system "git", "init", "-q", testpath/"repo"
    cd testpath/"repo" do
      system bin/"git-vouch", "install"
      assert_match "vouch-managed-hook", (testpath/"repo/.git/hooks/pre-push").read
      assert_match "tier: critical", shell_output("#{bin}/git-vouch check -- git push --force origin main 2>&1", 1)
      assert_match "GIT-VOUCH", (man1/"git-vouch.1").read
    end
  end
end
