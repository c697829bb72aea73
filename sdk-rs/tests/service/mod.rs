//! A live `reasonforge serve` on a free loopback port, with a temporary REASONFORGE_HOME and its own keys.
//! Dropping the handle stops the server and removes its home, whatever happened in between; `setpriv
//! --pdeathsig` (where util-linux has it) stops it too when the test process dies without unwinding.

use std::env;
use std::fs;
use std::io;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reasonforge::Client;

const START_TIMEOUT: Duration = Duration::from_secs(60);
const STOP_TIMEOUT: Duration = Duration::from_secs(15);
const PORT_ATTEMPTS: usize = 3;

/// The `reasonforge` CLI: $REASONFORGE_CLI, else the repository's .venv, else PATH.
pub fn reasonforge_cli() -> PathBuf {
    if let Some(cli) = env::var_os("REASONFORGE_CLI") {
        return PathBuf::from(cli);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/reasonforge");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("reasonforge")
    }
}

fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn temp_home() -> io::Result<PathBuf> {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let home = env::temp_dir().join(format!("rf-sdk-rs-{}-{nanos}", std::process::id()));
    fs::create_dir_all(&home)?;
    Ok(home)
}

fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// The first `rf_…` key in the CLI's output.
fn find_key(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find("rf_") {
        let before = rest[..at].chars().last();
        let word_start = before.map_or(true, |c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'));
        let tail = &rest[at + 3..];
        let length = tail.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')).unwrap_or(tail.len());
        if word_start && length > 0 {
            return Some(format!("rf_{}", &tail[..length]));
        }
        rest = &rest[at + 3..];
    }
    None
}

pub struct Service {
    pub base_url: String,
    pub home: PathBuf,
    cli: PathBuf,
    child: Option<Child>,
    envs: Vec<(String, String)>,
}

impl Service {
    /// Start the service; certificates use the reduced circuit (seconds to prove, about a minute to set up).
    /// `REASONFORGE_TEST_CERTIFICATE_KEYS` may name a folder of that circuit's keys built before, copied in so
    /// the setup is skipped.
    pub fn start() -> Result<Service, String> {
        let cli = reasonforge_cli();
        let home = temp_home().map_err(|e| format!("cannot create a temporary home: {e}"))?;
        // From here on, dropping `service` removes the home, whichever way this returns.
        let mut service = Service { base_url: String::new(), home, cli, child: None, envs: Vec::new() };
        if let Some(keys) = env::var_os("REASONFORGE_TEST_CERTIFICATE_KEYS") {
            let keys = PathBuf::from(keys);
            let name = keys.file_name().ok_or_else(|| format!("{} is not a keys folder", keys.display()))?;
            copy_tree(&keys, &service.home.join("certificate").join("keys").join(name))
                .map_err(|e| format!("cannot copy the certificate keys from {}: {e}", keys.display()))?;
        }
        let mut last_error = String::new();
        for _ in 0..PORT_ATTEMPTS {
            let port = free_port().map_err(|e| format!("no free port on 127.0.0.1: {e}"))?;
            service.base_url = format!("http://127.0.0.1:{port}");
            service.envs = vec![
                ("REASONFORGE_HOME".to_string(), service.home.display().to_string()),
                ("REASONFORGE_PUBLIC_BASE_URL".to_string(), service.base_url.clone()),
                ("REASONFORGE_BUILD_KEYS_AT_START".to_string(), "false".to_string()),
                ("REASONFORGE_CERTIFICATE_CIRCUIT".to_string(), "small".to_string()),
                ("PYTHONUNBUFFERED".to_string(), "1".to_string()),
            ];
            match service.spawn(port) {
                Ok(()) => return Ok(service),
                Err(why) => {
                    service.stop();
                    // Another process took the port between our probe and the server's bind: try another.
                    let in_use = why.to_lowercase().contains("address already in use");
                    last_error = why;
                    if !in_use {
                        break;
                    }
                }
            }
        }
        Err(last_error)
    }

    fn command(&self, program: &Path) -> Command {
        // A developer's own REASONFORGE_* settings must not leak into the test server.
        let mut command = Command::new(program);
        for (name, _) in env::vars_os() {
            if name.to_string_lossy().starts_with("REASONFORGE_") {
                command.env_remove(&name);
            }
        }
        command.envs(self.envs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        command
    }

    fn spawn(&mut self, port: u16) -> Result<(), String> {
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.log_path())
            .map_err(|e| format!("cannot open the server log: {e}"))?;
        let log_err = log.try_clone().map_err(|e| e.to_string())?;
        let serve = ["serve", "--host", "127.0.0.1", "--port", &port.to_string()].map(String::from);
        let setpriv = Path::new("/usr/bin/setpriv");
        let mut command = if setpriv.exists() {
            let mut c = self.command(setpriv);
            c.args(["--pdeathsig", "TERM", "--"]).arg(&self.cli);
            c
        } else {
            self.command(&self.cli)
        };
        let child = command
            .args(&serve)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err)
            .spawn()
            .map_err(|e| format!("cannot run {}: {e} (set REASONFORGE_CLI to the reasonforge executable)", self.cli.display()))?;
        self.child = Some(child);
        let probe = Client::builder(&self.base_url)
            .timeout(Duration::from_secs(2))
            .max_retries(0)
            .build()
            .map_err(|e| e.to_string())?;
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if probe.health().map(|h| h.status == "ok").unwrap_or(false) {
                return Ok(());
            }
            let exited = self.child.as_mut().and_then(|c| c.try_wait().ok().flatten());
            if let Some(status) = exited {
                return Err(format!("reasonforge serve exited ({status}):\n{}", self.log_tail()));
            }
            if Instant::now() > deadline {
                return Err(format!("reasonforge serve not healthy after {START_TIMEOUT:?}:\n{}", self.log_tail()));
            }
            sleep(Duration::from_millis(100));
        }
    }

    pub fn log_path(&self) -> PathBuf {
        self.home.join("serve.log")
    }

    /// The end of the server's log, to show beside a failure.
    pub fn log_tail(&self) -> String {
        let text = fs::read(self.log_path()).unwrap_or_default();
        let start = text.len().saturating_sub(3000);
        String::from_utf8_lossy(&text[start..]).into_owned()
    }

    /// `reasonforge keys create --name NAME ARGS…`: a fresh key on this service.
    pub fn create_key(&self, name: &str, args: &[&str]) -> String {
        let done = self
            .command(&self.cli)
            .args(["keys", "create", "--name", name])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", self.cli.display()));
        let stdout = String::from_utf8_lossy(&done.stdout);
        match find_key(&stdout) {
            Some(key) if done.status.success() => key,
            _ => panic!(
                "reasonforge keys create --name {name} failed ({}):\n{stdout}{}",
                done.status,
                String::from_utf8_lossy(&done.stderr)
            ),
        }
    }

    /// SIGTERM (the server stops its workers itself), then SIGKILL if it is still there after STOP_TIMEOUT.
    fn stop(&mut self) {
        let mut child = match self.child.take() {
            Some(child) => child,
            None => return,
        };
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        let termed = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        let deadline = Instant::now() + if termed { STOP_TIMEOUT } else { Duration::ZERO };
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.stop();
        let _ = fs::remove_dir_all(&self.home);
    }
}
