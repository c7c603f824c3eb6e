//! The server door (`pre-receive`, SPEC 3.5) behind real servers on
//! 127.0.0.1, started by each test: the file transport to a bare
//! repository, `git daemon --enable=receive-pack`, and smart HTTP through
//! `git http-backend` behind nginx and fcgiwrap, and ssh through gitolite
//! (sshd on a loopback port, gitolite's shell as the forced command). For each: a force push that
//! would remove commits from the server's `main` is refused with the
//! concerns shown to the pusher as `remote:` lines, also when the client
//! skips its own hooks with `--no-verify`; the same push with
//! `-o vouch.skip=...` is allowed where the server's policy lets the pusher
//! skip, and logged with the pusher; a fast-forward goes through at once.

use std::fs;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::llm::{LlmServer, Reply, ok};
use crate::support::{Out, TestEnv};

const ANTHROPIC_KEY: &str = "sk-ant-TESTKEY-ANTHROPIC-0123456789";

/// The programs a test needs. Any missing: in CI (`CI` set) the test
/// fails, as `.ci/run` installs them; elsewhere it is skipped, naming
/// every one that is missing.
fn need(programs: &[&str]) -> bool {
    let missing: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|program| {
            !Command::new("sh")
                .args([
                    "-c",
                    &format!("command -v {program} || test -x /usr/sbin/{program}"),
                ])
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
        .collect();
    if !missing.is_empty() {
        crate::support::missing_all(&missing);
    }
    missing.is_empty()
}

/// A child process killed when the test ends.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until something listens on `port` (a readiness poll, not a timed
/// assertion: the deadline only ends a test whose server never started).
fn wait_for_port(port: u16, what: &str, log: &Path) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "{what} did not start: {}",
            fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    File,
    Daemon,
    Http,
    Ssh,
}

/// A git server holding the test's `remote.git`, with vouch's pre-receive.
struct Served {
    env: TestEnv,
    url: String,
    _procs: Vec<Proc>,
}

/// The verdict an Anthropic model gives, on its wire.
fn anthropic(verdict: &Value) -> Reply {
    ok(
        json!({"content": [{"type": "text", "text": verdict.to_string()}],
              "stop_reason": "end_turn", "usage": {"input_tokens": 100, "output_tokens": 50}}),
    )
}

fn block_verdict() -> Value {
    json!({"verified": false, "confidence": 0.9,
           "concerns": ["shared history on main would be destroyed"],
           "recommendation": "block", "reasoning": "Commits by the team leave the default branch.",
           "scores": {"recoverability": 0.1, "blast_radius": 0.1, "intent_fit": 0.2, "safeguards": 0.1}})
}

/// Starts `transport` in front of a fresh `remote.git` with vouch's
/// pre-receive, and points `work/`'s `origin` at it. With `llm`, the
/// server's vouch asks it (an Anthropic model; the pusher is taken to
/// come from OpenAI's side).
fn serve(transport: Transport, llm: Option<&LlmServer>) -> Served {
    let mut env = TestEnv::new();
    if let Some(llm) = llm {
        env.extra_env.extend([
            ("ANTHROPIC_BASE_URL".to_owned(), llm.url.clone()),
            ("ANTHROPIC_API_KEY".to_owned(), ANTHROPIC_KEY.to_owned()),
            ("VOUCH_PRIMARY".to_owned(), "openai".to_owned()),
        ]);
    }
    let remote = env.remote.display().to_string();
    env.vouch(&["install", "--server", "--repo", &remote])
        .code(0)
        .stderr_has("receive.advertisePushOptions");
    assert_eq!(
        env.git(&env.remote, &["config", "receive.advertisePushOptions"])
            .trim(),
        "true"
    );
    let base = env.base();
    let mut procs = Vec::new();
    let url = match transport {
        Transport::File => remote,
        Transport::Daemon => {
            let port = free_port();
            let log = base.join("daemon.log");
            // `git-daemon` itself: `git daemon` would leave it running as
            // a child when killed.
            let exec_path = env.git(&base, &["--exec-path"]).trim().to_owned();
            let child = env
                .cmd(Path::new(&exec_path).join("git-daemon"), &base)
                .args([
                    "--reuseaddr",
                    "--listen=127.0.0.1",
                    &format!("--port={port}"),
                    &format!("--base-path={}", base.display()),
                    "--export-all",
                    "--enable=receive-pack",
                    "--informative-errors",
                ])
                .arg(&base)
                .stderr(fs::File::create(&log).unwrap())
                .spawn()
                .expect("git daemon starts");
            procs.push(Proc(child));
            wait_for_port(port, "git daemon", &log);
            format!("git://127.0.0.1:{port}/remote.git")
        }
        Transport::Http => {
            let (port, mut started) = http_server(&env);
            procs.append(&mut started);
            format!("http://127.0.0.1:{port}/git/remote.git")
        }
        Transport::Ssh => {
            let (url, ssh, sshd) = gitolite_server(&env);
            env.extra_env.push(("GIT_SSH_COMMAND".to_owned(), ssh));
            procs.push(sshd);
            url
        }
    };
    env.git(&env.work, &["remote", "set-url", "origin", &url]);
    Served {
        env,
        url,
        _procs: procs,
    }
}

/// nginx in front of fcgiwrap in front of `git http-backend`, serving
/// `<base>/*.git` under `/git/`, as an authenticated user `alice`
/// (`REMOTE_USER`, which a web server's authentication sets). The hook's
/// environment is what the `FastCGI` parameters say: the test's variables.
fn http_server(env: &TestEnv) -> (u16, Vec<Proc>) {
    let base = env.base();
    let dir = base.join("http");
    fs::create_dir_all(dir.join("tmp")).unwrap();
    let sock = dir.join("fcgi.sock");
    let fcgi_log = dir.join("fcgiwrap.log");
    let fcgi = env
        .cmd("/usr/sbin/fcgiwrap", &dir)
        .arg("-s")
        .arg(format!("unix:{}", sock.display()))
        .stderr(fs::File::create(&fcgi_log).unwrap())
        .spawn()
        .expect("fcgiwrap starts");
    let fcgi = Proc(fcgi);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !sock.exists() {
        assert!(Instant::now() < deadline, "fcgiwrap did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let exec_path = env.git(&base, &["--exec-path"]).trim().to_owned();
    let port = free_port();
    let mut params = String::new();
    for (k, v) in env.vars() {
        params.push_str(&format!("      fastcgi_param {k} \"{v}\";\n"));
    }
    let t = dir.join("tmp").display().to_string();
    let conf = format!(
        r"daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {t}/body;
  fastcgi_temp_path {t}/fastcgi;
  proxy_temp_path {t}/proxy;
  uwsgi_temp_path {t}/uwsgi;
  scgi_temp_path {t}/scgi;
  client_max_body_size 0;
  server {{
    listen 127.0.0.1:{port};
    location ~ ^/git(/.*)$ {{
      fastcgi_pass unix:{sock};
      fastcgi_param SCRIPT_FILENAME {exec_path}/git-http-backend;
      fastcgi_param PATH_INFO $1;
      fastcgi_param QUERY_STRING $query_string;
      fastcgi_param REQUEST_METHOD $request_method;
      fastcgi_param CONTENT_TYPE $content_type;
      fastcgi_param CONTENT_LENGTH $content_length;
      fastcgi_param GIT_PROJECT_ROOT {base};
      fastcgi_param GIT_HTTP_EXPORT_ALL 1;
      fastcgi_param REMOTE_USER alice;
{params}    }}
  }}
}}
",
        dir = dir.display(),
        sock = sock.display(),
        base = base.display(),
    );
    let conf_path = dir.join("nginx.conf");
    fs::write(&conf_path, conf).unwrap();
    let log = dir.join("nginx.stderr");
    let nginx = env
        .cmd("/usr/sbin/nginx", &dir)
        .arg("-p")
        .arg(&dir)
        .arg("-e")
        .arg(dir.join("error.log"))
        .arg("-c")
        .arg(&conf_path)
        .stderr(fs::File::create(&log).unwrap())
        .spawn()
        .expect("nginx starts");
    let nginx = Proc(nginx);
    wait_for_port(port, "nginx", &dir.join("error.log"));
    (port, vec![nginx, fcgi])
}

/// The ssh command a client uses with `key`.
fn ssh_command(key: &Path, port: u16) -> String {
    format!(
        "ssh -i {} -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p {port}",
        key.display()
    )
}

/// gitolite behind sshd on 127.0.0.1, as a team runs it: gitolite set up
/// under its own `HOME` with `alice` as a key that may rewind (`RW+`) and
/// `bob` as one that may only push (`RW`), `remote.git` as its repository
/// `remote` (gitolite's own `update` hook installed beside vouch's
/// `pre-receive`), and sshd with the test's host key whose authorized keys
/// run gitolite's shell for each key, with the test's variables. Returns
/// the URL, alice's ssh command and the running sshd.
fn gitolite_server(env: &TestEnv) -> (String, String, Proc) {
    let base = env.base();
    let dir = base.join("ssh");
    let home = base.join("gitolite");
    fs::create_dir_all(&dir).unwrap();
    fs::create_dir_all(&home).unwrap();
    let keygen = |name: &str| {
        let key = dir.join(name);
        let out = env
            .cmd("ssh-keygen", &dir)
            .args(["-q", "-t", "ed25519", "-N", "", "-C", name, "-f"])
            .arg(&key)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        key
    };
    let (alice, bob, host) = (keygen("alice"), keygen("bob"), keygen("host"));
    let gitolite = |args: &[&str]| {
        let out = env
            .cmd("gitolite", &home)
            .env("HOME", &home)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "gitolite {args:?}: {out:?}");
    };
    gitolite(&["setup", "-pk", &format!("{}.pub", alice.display())]);
    let conf = home.join(".gitolite/conf/gitolite.conf");
    let mut text = fs::read_to_string(&conf).unwrap();
    text.push_str("\nrepo remote\n    RW+     =   alice\n    RW      =   bob\n");
    fs::write(&conf, text).unwrap();
    // The test's bare repository (vouch's pre-receive already in it) is
    // gitolite's `remote`.
    std::os::unix::fs::symlink(&env.remote, home.join("repositories/remote.git")).unwrap();
    gitolite(&["compile"]);
    gitolite(&["setup"]);
    let update = fs::read_link(env.remote.join("hooks/update")).expect("gitolite's update hook");
    assert!(
        update.ends_with(".gitolite/hooks/common/update"),
        "{}",
        update.display()
    );

    // Each key runs gitolite's shell under its name, with the test's
    // variables and gitolite's HOME (sshd passes the client's none).
    let mut vars = String::new();
    for (k, v) in env.vars() {
        if k != "HOME" {
            vars.push_str(&format!("'{k}={v}' "));
        }
    }
    let mut keys = String::new();
    for (name, key) in [("alice", &alice), ("bob", &bob)] {
        let public = fs::read_to_string(key.with_extension("pub")).unwrap();
        keys.push_str(&format!(
            "command=\"env {vars}'HOME={}' /usr/share/gitolite3/gitolite-shell {name}\",no-port-forwarding,no-X11-forwarding,no-agent-forwarding,no-pty {public}",
            home.display()
        ));
    }
    fs::write(dir.join("authorized_keys"), keys).unwrap();
    let port = free_port();
    let conf = format!(
        "ListenAddress 127.0.0.1\nPort {port}\nHostKey {host}\nAuthorizedKeysFile {dir}/authorized_keys\nPidFile {dir}/sshd.pid\nUsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n",
        host = host.display(),
        dir = dir.display()
    );
    fs::write(dir.join("sshd_config"), conf).unwrap();
    // sshd wants its privilege-separation directory when started as root.
    fs::create_dir_all("/run/sshd").ok();
    let log = dir.join("sshd.log");
    let sshd = env
        .cmd("/usr/sbin/sshd", &dir)
        .args(["-D", "-e", "-f"])
        .arg(dir.join("sshd_config"))
        .stderr(fs::File::create(&log).unwrap())
        .spawn()
        .expect("sshd starts");
    let sshd = Proc(sshd);
    wait_for_port(port, "sshd", &log);
    let login = String::from_utf8(env.cmd("id", &dir).arg("-un").output().unwrap().stdout).unwrap();
    let url = format!("ssh://{}@127.0.0.1:{port}/remote", login.trim());
    (url, ssh_command(&alice, port), sshd)
}

impl Served {
    /// The server's `main`.
    fn server_main(&self) -> String {
        self.env.rev(&self.env.remote, "refs/heads/main")
    }

    /// The audit lines the server door wrote.
    fn server_records(&self) -> Vec<Value> {
        self.env
            .audit()
            .into_iter()
            .filter(|r| r["hook"] == "pre-receive")
            .collect()
    }

    /// A new commit on `work/`'s `main` replacing its last one: pushed with
    /// force, it removes one commit from the server's `main`, and the new
    /// commit exists on the server only in git's quarantine while the hook
    /// judges.
    fn rewrite_last(&self) {
        self.env.rewind(1);
        self.env
            .commit(&self.env.work, "replacement.txt", "replacement");
    }

    /// A fast-forward is allowed at once: nothing printed, nothing logged.
    fn fast_forward_is_allowed_at_once(&self) {
        let before = self.server_records().len();
        self.env.commit(&self.env.work, "ff.txt", "fast forward");
        let out = self.env.push(&["origin", "main"]);
        out.code(0);
        assert!(!out.stderr.contains("remote: vouch"), "{}", out.stderr);
        assert_eq!(self.server_main(), self.env.rev(&self.env.work, "HEAD"));
        assert_eq!(
            self.server_records().len(),
            before,
            "a routine push leaves no line"
        );
    }

    /// The force push is refused with the facts (and `concern`, when a
    /// model judged) as `remote:` lines, even with the client's hooks
    /// installed and skipped by `--no-verify`.
    fn force_push_is_refused(&self, concern: Option<&str>) -> Out {
        // The client's own guard is skipped: the server judges anyway.
        self.env.vouch(&["install"]).code(0);
        let before = self.server_main();
        self.rewrite_last();
        let out = self.env.push(&["--force", "--no-verify", "origin", "main"]);
        assert_ne!(out.code, 0, "{}", out.stderr);
        out.stderr_has("remote: vouch: refused:")
            .stderr_has("remote:   [critical] force push rewrites branch `main` (the default branch of `remote.git`) and removes 1 commit by 1 author")
            .stderr_has("remote:     git vouch approve ")
            .stderr_has("remote:     git push -o vouch.skip=\"<why this is safe>\" ...")
            .stderr_has("(pre-receive hook declined)");
        assert!(
            !out.stderr.contains("Review request:"),
            "no server path the pusher cannot open: {}",
            out.stderr
        );
        if let Some(concern) = concern {
            out.stderr_has(&format!("remote:   concern: ai:anthropic: {concern}"));
        }
        assert_eq!(self.server_main(), before, "the server's main is unchanged");
        let r = self.server_records().pop().expect("the refusal is logged");
        assert_eq!(r["decision"], "refused");
        assert_eq!(r["risk_tier"], "critical");
        assert_eq!(r["refs"][0]["change"], "rewrite");
        assert_eq!(r["refs"][0]["lost_commits"], 1);
        // The new commit was read from git's quarantine: the change is
        // measured (not "unknown"), and the hook saw the quarantine.
        assert_eq!(r["refs"][0]["remote_tip"], "known");
        assert_eq!(r["operation"]["facts"]["quarantine"], true);
        out
    }

    /// With the server's leave, a skip goes through and is logged with the
    /// pusher and the reason.
    fn skip_is_allowed_and_logged(&self, pusher: &str) {
        let out = self.env.push(&[
            "--force",
            "--no-verify",
            "-o",
            "vouch.skip=restoring main after a bad merge",
            "origin",
            "main",
        ]);
        out.code(0)
            .stderr_has("remote: vouch: allowed without verification: push option vouch.skip from");
        assert_eq!(self.server_main(), self.env.rev(&self.env.work, "HEAD"));
        let r = self.server_records().pop().unwrap();
        assert_eq!(r["decision"], "allowed");
        assert_eq!(r["was_overridden"], true);
        assert_eq!(r["pusher"], pusher);
        let reason = r["override_reason"].as_str().unwrap();
        assert!(reason.contains(pusher), "{reason}");
        assert!(
            reason.ends_with("restoring main after a bad merge"),
            "{reason}"
        );
    }
}

/// The file transport, with no key: nothing can verify, nobody can be
/// asked on a server, so the critical push is refused; a skip on the
/// default branch is refused by the default policy and honoured once the
/// server allows it.
#[test]
fn file_transport_refuses_a_history_removing_push_without_a_verifier() {
    let s = serve(Transport::File, None);
    s.fast_forward_is_allowed_at_once();
    // The refusal cites the setting as the config says it, not as "block".
    s.force_push_is_refused(None)
        .stderr_has("on_unavailable.critical = \"ask\", and nobody can be asked on the server");
    // The default policy keeps skips off the default branch.
    let out = s.env.push(&[
        "--force",
        "--no-verify",
        "-o",
        "vouch.skip=trust me",
        "origin",
        "main",
    ]);
    assert_ne!(out.code, 0);
    out.stderr_has("`-o vouch.skip` is not honoured: the server does not allow skips on `main`");
    s.env
        .git(&s.env.remote, &["config", "vouch.allowSkip", "always"]);
    s.skip_is_allowed_and_logged("Test User <test@example.com> (committer)");
}

/// `git daemon --enable=receive-pack`: a model's block reaches the pusher
/// with its concern.
#[test]
fn git_daemon_refuses_with_the_verifiers_concerns() {
    let llm = LlmServer::start(vec![anthropic(&block_verdict())]);
    let s = serve(Transport::Daemon, Some(&llm));
    s.fast_forward_is_allowed_at_once();
    assert_eq!(llm.count(), 0, "a fast-forward asks no model");
    s.force_push_is_refused(Some("shared history on main would be destroyed"));
    assert_eq!(llm.count(), 1);
    let prompt = &llm.received()[0].body;
    assert!(prompt.contains("pre-receive"), "{prompt}");
    let r = s.server_records().pop().unwrap();
    assert_eq!(r["result"], "block");
    assert_eq!(r["verifier_provider"], "anthropic");
    s.env
        .git(&s.env.remote, &["config", "vouch.allowSkip", "always"]);
    s.skip_is_allowed_and_logged("Test User <test@example.com> (committer)");
}

/// Smart HTTP behind nginx: the web server's user (`REMOTE_USER`) is the
/// pusher; only the named users may skip.
#[test]
fn smart_http_refuses_and_lets_a_named_user_skip() {
    if !need(&["nginx", "fcgiwrap"]) {
        return;
    }
    let llm = LlmServer::start(vec![anthropic(&block_verdict())]);
    let s = serve(Transport::Http, Some(&llm));
    assert!(s.url.starts_with("http://"));
    s.fast_forward_is_allowed_at_once();
    s.force_push_is_refused(Some("shared history on main would be destroyed"));
    let r = s.server_records().pop().unwrap();
    assert_eq!(r["pusher"], "alice (REMOTE_USER)");
    s.env
        .git(&s.env.remote, &["config", "vouch.allowSkip", "always"]);
    s.env
        .git(&s.env.remote, &["config", "vouch.skipUser", "bob"]);
    let out = s.env.push(&[
        "--force",
        "--no-verify",
        "-o",
        "vouch.skip=mine",
        "origin",
        "main",
    ]);
    assert_ne!(out.code, 0);
    out.stderr_has("`alice` is not among the server's `vouch.skipUser`s");
    s.env.git(
        &s.env.remote,
        &["config", "--add", "vouch.skipUser", "alice"],
    );
    s.skip_is_allowed_and_logged("alice (REMOTE_USER)");
}

/// ssh through gitolite: the pusher is the ssh key's name as gitolite
/// knows it (`GL_USER`), and gitolite's own access rules still apply
/// after vouch lets a push through (bob may push, not rewind).
#[test]
fn gitolite_over_ssh_refuses_and_names_the_key() {
    if !need(&["sshd", "gitolite"]) {
        return;
    }
    let s = serve(Transport::Ssh, None);
    assert!(s.url.starts_with("ssh://"), "{}", s.url);
    s.fast_forward_is_allowed_at_once();
    s.force_push_is_refused(None);
    let r = s.server_records().pop().unwrap();
    assert_eq!(r["pusher"], "alice (GL_USER)");
    s.env
        .git(&s.env.remote, &["config", "vouch.allowSkip", "always"]);
    // bob's skip passes vouch, and gitolite's `update` hook refuses the rewind.
    let port = s.url.rsplit_once(':').unwrap().1.split('/').next().unwrap();
    let bob = ssh_command(&s.env.base().join("ssh/bob"), port.parse().unwrap());
    let before = s.server_main();
    let out = s
        .env
        .cmd("git", &s.env.work)
        .env("GIT_SSH_COMMAND", bob)
        .args([
            "push",
            "--force",
            "--no-verify",
            "-o",
            "vouch.skip=bob's cleanup",
            "origin",
            "main",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("remote: vouch: allowed without verification"),
        "{stderr}"
    );
    assert!(stderr.contains("DENIED"), "gitolite's own rule: {stderr}");
    assert_eq!(s.server_main(), before);
    let r = s.server_records().pop().unwrap();
    assert_eq!(r["pusher"], "bob (GL_USER)");
    s.skip_is_allowed_and_logged("alice (GL_USER)");
}

/// `install --server` keeps a forge's own `pre-receive` and runs it first
/// (its refusal stands), and `--all-under` reaches every bare repository.
#[test]
fn install_server_chains_the_existing_hook_in_every_repository() {
    let env = TestEnv::new();
    let root = env.base().join("repos");
    for name in ["team/a.git", "team/b.git"] {
        let path = root.join(name);
        fs::create_dir_all(&path).unwrap();
        env.git(&path, &["init", "-q", "--bare", "-b", "main"]);
    }
    let forge = root.join("team/a.git/hooks/pre-receive");
    fs::write(
        &forge,
        "#!/bin/sh\nwhile read old new ref; do echo \"forge hook saw $ref\" >&2; done\n[ -f \"$GIT_DIR/refuse\" ] && { echo 'forge says no' >&2; exit 1; }\nexit 0\n",
    )
    .unwrap();
    std::os::unix::fs::PermissionsExt::set_mode(
        &mut fs::metadata(&forge).unwrap().permissions(),
        0o755,
    );
    Command::new("chmod")
        .arg("755")
        .arg(&forge)
        .status()
        .unwrap();
    env.vouch(&["install", "--server", "--all-under", root.to_str().unwrap()])
        .code(0)
        .stderr_has("2 repositories are guarded");
    let kept: PathBuf = root.join("team/a.git/hooks/pre-receive.local");
    assert!(kept.is_file(), "the forge's hook is kept");
    for name in ["team/a.git", "team/b.git"] {
        // A script, or the gate that carries the script's text.
        let hook = fs::read(root.join(name).join("hooks/pre-receive")).unwrap();
        assert!(String::from_utf8_lossy(&hook).contains("hook pre-receive"));
    }
    // Installing again changes nothing.
    env.vouch(&["install", "--server", "--all-under", root.to_str().unwrap()])
        .code(0)
        .stderr_has("already installed");
    let a = root.join("team/a.git");
    let a_url = a.to_str().unwrap();
    env.push(&[a_url, "main:main"])
        .code(0)
        .stderr_has("remote: forge hook saw refs/heads/main");
    fs::write(a.join("refuse"), "").unwrap();
    env.commit(&env.work, "more.txt", "more");
    let out = env.push(&[a_url, "main:main"]);
    assert_ne!(out.code, 0);
    out.stderr_has("remote: forge says no").stderr_has(
        "remote: vouch: the chained hook `pre-receive.local` refused this push (exit 1)",
    );
    // A non-bare repository is not a server's.
    env.vouch(&["install", "--server", "--repo", env.work.to_str().unwrap()])
        .code(2)
        .stderr_has("has a work tree");
}

/// A deletion on the server loses what no ref that stays holds: a branch
/// whose commit `main` also holds loses nothing; one with a commit of its
/// own loses that commit (the one survivor rule, as at the other doors).
#[test]
fn a_deletion_on_the_server_counts_what_no_remaining_ref_holds() {
    let s = serve(Transport::File, None);
    let env = &s.env;
    env.git(&env.work, &["branch", "merged"]);
    env.git(&env.work, &["switch", "-q", "-c", "topic"]);
    env.commit(&env.work, "topic.txt", "only on topic");
    env.git(&env.work, &["switch", "-q", "main"]);
    env.push(&["origin", "merged", "topic"]).code(0);
    let lost = |branch: &str| {
        let out = env.push(&["--no-verify", "origin", &format!(":{branch}")]);
        let record = s
            .server_records()
            .into_iter()
            .rev()
            .find(|r| r.to_string().contains(&format!("refs/heads/{branch}")));
        (out, record)
    };
    let (out, record) = lost("merged");
    out.code(0);
    let said = format!(
        "{}\n{}",
        out.stderr,
        record.map(|r| r.to_string()).unwrap_or_default()
    );
    assert!(!said.contains("removes"), "main holds its commit:\n{said}");
    let (out, record) = lost("topic");
    let said = format!(
        "{}\n{}",
        out.stderr,
        record.map(|r| r.to_string()).unwrap_or_default()
    );
    assert!(
        said.contains("removes 1 commit"),
        "the commit only topic holds is counted:\n{said}"
    );
}

/// The approval round trip on the server: a person at the server's
/// terminal runs `git vouch approve <id>` for the refused push, and the
/// same push with `-o vouch.approve=<id>` goes through once and is logged
/// as overridden; a push option naming another operation is said to.
#[test]
fn an_approval_at_the_servers_terminal_lets_that_push_through_once() {
    if !need(&["tmux"]) {
        return;
    }
    let s = serve(Transport::File, None);
    s.force_push_is_refused(None);
    let id = s.server_records().pop().unwrap()["operation_id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Another id: the push is judged as usual, and told why.
    s.env
        .push(&[
            "--force",
            "--no-verify",
            "-o",
            "vouch.approve=0123456789ab",
            "origin",
            "main",
        ])
        .stderr_has("`-o vouch.approve=0123456789ab` names another operation")
        .code(1);
    let bin = crate::support::vouch_bin();
    let term = crate::support::tmux::Tmux::start(
        &s.env,
        &s.env.remote,
        &format!("{} approve {id}", bin.display()),
    );
    term.wait_for("Type `yes`");
    term.send("yes");
    term.send("Enter");
    term.wait_for("[exit=0]");
    let push = |what: &str| {
        s.env.push(&[
            "--force",
            "--no-verify",
            "-o",
            &format!("vouch.approve={what}"),
            "origin",
            "main",
        ])
    };
    let before = s.server_main();
    push(&id).code(0);
    assert_eq!(s.server_main(), s.env.rev(&s.env.work, "HEAD"));
    let r = s.server_records().pop().unwrap();
    assert_eq!(r["decision"], "allowed");
    assert_eq!(r["was_overridden"], true);
    assert!(
        r["override_reason"]
            .as_str()
            .unwrap()
            .contains("vouch approve"),
        "{r}"
    );
    // Used up: the server's main put back, the very same push (same refs,
    // same values, same id) is refused again.
    s.env
        .git(&s.env.remote, &["update-ref", "refs/heads/main", &before]);
    let out = push(&id);
    assert_ne!(out.code, 0, "{}", out.stderr);
    out.stderr_has("remote: vouch: refused:");
    assert_eq!(s.server_main(), before);
}
