//! Strategies turn a text into chunks. Each strategy is one file holding a
//! [`Spec`] (what it is, which settings it reads, how to build it) and a type
//! that implements [`Strategy`]; [`table`] lists the specs, one row each.
//! Everything that offers strategies — the CLI's help, `validate`, the
//! workbench's parameter panel, footer and option key, the tests and the fuzz
//! target — reads that table, so adding a strategy is one file and one row.
//!
//! The model strategies are written against [`crate::embedding::Embedder`]
//! and get a model through [`Context`]: nothing in `strategy/` loads a model
//! or knows about ONNX Runtime.

pub mod code;
pub mod document;
pub mod fast;
pub mod fixed;
pub mod hierarchical;
pub mod html;
pub mod json;
pub mod langchain;
pub mod late;
pub mod llm;
pub mod markdown;
pub mod pack;
pub mod recursive;
pub mod rows;
pub mod semantic;
pub mod sentence;
pub mod settings;
pub mod table;

pub use crate::config::StrategyKind;
pub(crate) use pack::Window;
pub use settings::check;
pub use table::register;

use crate::chunk::Chunk;
use crate::config::{ChunkConfig, Unit};
use crate::embedding::{Control, Embedder};
use crate::error::{Error, Result};
use crate::size::{SizeIndex, Sizer};
use std::ops::Range;

/// A built strategy: settings checked and compiled, ready for any number of
/// texts. Cheap to share between threads.
pub trait Strategy: Send + Sync {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>>;

    /// Whether [`Strategy::chunk_each`] holds no chunk list and hands the
    /// chunks over in text order.
    fn streams(&self) -> bool {
        false
    }

    /// Whether [`Strategy::chunk_each`] holds no chunk list, though (unlike
    /// [`Strategy::streams`]) a chunk may come before the one before it:
    /// `stats` then reads them in text order over a few passes.
    fn holds_no_list(&self) -> bool {
        self.streams()
    }

    /// A stretch of `text` holding `screen` that the cut treats on its own:
    /// [`Strategy::chunk_within`] of it alone gives exactly the chunks of the
    /// whole cut that lie in it, in order, without cutting the text before
    /// it. The workbench shows these first when the screen is in the middle
    /// of a long document. None (the default): the strategy carries state
    /// through the text, and only its first chunks can come early.
    fn region_around(&self, _text: &str, _cx: &Context<'_>, _screen: Range<usize>) -> Option<Range<usize>> {
        None
    }

    /// A stretch of `text` holding `screen` that starts where the cut
    /// starts afresh but may end where it does not: [`Strategy::chunk_region`]
    /// of it gives the whole cut's chunks there but for the last, which the
    /// stretch's end may close early. For a screen with such a start near
    /// before it and none near after it (megabytes of short paragraphs).
    /// None (the default) where the strategy has no such stretch.
    fn region_from(&self, _text: &str, _cx: &Context<'_>, _screen: Range<usize>) -> Option<Range<usize>> {
        None
    }

    /// The whole cut's chunks that start in `region`, a stretch
    /// [`Strategy::region_around`] gave, in order. By default the stretch's
    /// own cut ([`Strategy::chunk_within`]): where a stretch starts and ends
    /// afresh, the two agree. Fixed windows with overlap run past any
    /// stretch's end, so they place the whole cut's windows instead.
    fn chunk_region(&self, text: &str, region: Range<usize>, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        Ok(self.chunk_within(text, &[region], cx)?.pop().unwrap_or_default())
    }

    /// Hand the chunks [`Strategy::chunk`] returns to `emit`, one by one in
    /// the same order. Strategies that can cut without holding the list
    /// override it, so statistics over a large file cut small hold none.
    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        self.chunk(text, cx)?.into_iter().for_each(emit);
        Ok(())
    }

    /// The byte ranges of the chunks [`Strategy::chunk_each`] hands over,
    /// pushed onto `out` flat: start, end, start, end... A strategy that can
    /// skip making the chunks (`fast`) overrides it.
    fn offsets_into(&self, text: &str, cx: &Context<'_>, out: &mut Vec<u64>) -> Result<()> {
        self.chunk_each(text, cx, &mut |c| {
            out.push(c.range.start as u64);
            out.push(c.range.end as u64);
        })
    }

    /// [`Strategy::chunk_each`], handing `early` the whole cut's chunks
    /// around `screen` as soon as the pass has them, before its stream
    /// reaches the screen: a run of consecutive chunks of the whole list
    /// holding every chunk that meets the screen. For a strategy whose
    /// stream reaches a screen deep in the text late but that can find the
    /// chunks there sooner in the same pass ([`Strategy::hands_screen_early`]);
    /// by default `early` is never called.
    fn chunk_each_around(
        &self,
        text: &str,
        cx: &Context<'_>,
        _screen: Range<usize>,
        _early: &mut dyn FnMut(Vec<Chunk>),
        emit: &mut dyn FnMut(Chunk),
    ) -> Result<()> {
        self.chunk_each(text, cx, emit)
    }

    /// Whether [`Strategy::chunk_each_around`] calls `early`.
    fn hands_screen_early(&self) -> bool {
        false
    }

    /// Cut each of `ranges` of `text` as a text of its own, the chunks' ranges
    /// into `text`: how the hierarchical strategy cuts each parent into its
    /// children. By default each slice is cut alone (and measured alone: a
    /// token count may differ from the whole text's at the slice's edges).
    /// Strategies that can see the whole text override it: markdown keeps the
    /// heading paths and fences of the whole document, recursive measures with
    /// the whole text's index.
    fn chunk_within(&self, text: &str, ranges: &[Range<usize>], cx: &Context<'_>) -> Result<Vec<Vec<Chunk>>> {
        ranges
            .iter()
            .map(|r| {
                let mut chunks = self.chunk(&text[r.clone()], cx)?;
                for c in &mut chunks {
                    c.range = c.range.start + r.start..c.range.end + r.start;
                }
                Ok(chunks)
            })
            .collect()
    }
}

/// What a strategy cuts with besides the text.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// Normalised and validated (see [`Configured::new`]).
    pub config: &'a ChunkConfig,
    /// Counts sizes in `config.unit`.
    pub sizer: &'a Sizer,
    /// The embedding model, for strategies whose [`Spec::needs_model`] is set.
    pub model: Option<&'a dyn Embedder>,
    /// Progress and cancellation of model work.
    pub control: Control<'a>,
    /// Where the text came from, when it was extracted from HTML or PDF
    /// (blocks, element paths, pages); None for text given as is.
    pub structure: Option<&'a crate::extract::Structure>,
    /// The whole text's size index when the caller already built it: the
    /// hierarchical strategy cuts its parents a batch at a time, and
    /// building the index of a large text for each batch would cost more
    /// than cutting it.
    pub index: Option<&'a SizeIndex<'a>>,
}

impl<'a> Context<'a> {
    /// The size index of `text`: the caller's when it is of this text, else
    /// a new one.
    pub fn size_index<'s>(&'s self, text: &'s str) -> Result<SizeIndex<'s>> {
        match self.index {
            Some(index) if index.is_of(text) => Ok(index.clone()),
            _ => self.sizer.index(text),
        }
    }

    /// The model, or an error saying the caller gave none.
    pub fn model(&self) -> Result<&'a dyn Embedder> {
        self.model.ok_or_else(|| {
            Error::Model(format!(
                "strategy '{}' needs an embedding model and none was given: attach one with \
                 Chunker::with_embedder (or build chunktui with the 'embed' feature to load --model)",
                self.config.strategy
            ))
        })
    }
}

/// How a strategy treats `size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeRule {
    /// Every chunk stays within `size` (in `unit`).
    Limit,
    /// Packs towards `size` but may exceed it, as LangChain's splitters do:
    /// they add up piece lengths (token counts of pieces are not the count of
    /// the joined chunk) and pass unsplittable pieces through.
    Target,
    /// `size` is not read.
    Ignored,
}

/// How a strategy overlaps neighbouring chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlapRule {
    /// `overlap`, in `unit`.
    Units,
    /// `sentence.overlap_sentences` whole sentences.
    Sentences,
    /// Chunks never overlap.
    None,
}

/// The one setting a strategy's option key (`o` in the workbench) cycles.
#[derive(Clone, Copy)]
pub struct OptionKnob {
    /// The setting as a short value for the parameter panel.
    pub show: fn(&ChunkConfig) -> String,
    /// Move to the next value (always one `validate` accepts); says what changed.
    pub next: fn(&mut ChunkConfig) -> String,
}

/// One row of the strategy table: everything the rest of chunktui needs to
/// know about a strategy without looking inside it.
#[derive(Clone, Copy)]
pub struct Spec {
    /// Its name in configs and on the command line.
    pub name: &'static str,
    /// One line for `--help` and the workbench.
    pub help: &'static str,
    /// Needs an embedding model ([`Context::model`]).
    pub needs_model: bool,
    /// Asks an LLM (`[llm]`: an OpenAI-compatible endpoint).
    pub needs_llm: bool,
    pub size: SizeRule,
    pub overlap: OverlapRule,
    /// Reads `semantic.threshold_type` / `threshold` / `number_of_chunks`.
    pub has_threshold: bool,
    /// Always counts in this unit, whatever `unit` says.
    pub forces_unit: Option<Unit>,
    /// The settings it reads besides size, overlap, unit and tokenizer, as
    /// command-line flags (or config keys where there is no flag).
    pub options: &'static [&'static str],
    /// What the option key cycles, if anything.
    pub option: Option<OptionKnob>,
    /// Re-cut from a cached sentence analysis without embedding again (the
    /// workbench's fast path for threshold and size changes).
    pub recut: Option<semantic::Recut>,
    /// The document formats it cuts (JSON, CSV...); empty: any text.
    pub formats: &'static [crate::document::DocKind],
    /// Check and compile the settings this strategy reads.
    pub build: fn(&ChunkConfig) -> Result<Box<dyn Strategy>>,
}

impl Spec {
    /// A row with every setting at its plainest (no model, size a limit in
    /// `unit`, overlap in `unit`, no options): a strategy from outside the
    /// crate fills in its name and help and changes what differs.
    pub const fn new(build: fn(&ChunkConfig) -> Result<Box<dyn Strategy>>) -> Spec {
        Spec {
            name: "",
            help: "",
            needs_model: false,
            needs_llm: false,
            size: SizeRule::Limit,
            overlap: OverlapRule::Units,
            has_threshold: false,
            forces_unit: None,
            options: &[],
            option: None,
            recut: None,
            formats: &[],
            build,
        }
    }

    pub fn promises_size_limit(&self) -> bool {
        self.size == SizeRule::Limit
    }
    pub fn reads_size(&self) -> bool {
        self.size != SizeRule::Ignored
    }
    pub fn uses_overlap(&self) -> bool {
        self.overlap == OverlapRule::Units
    }
    /// Its chunks never overlap: an overlap setting changes nothing.
    pub fn never_overlaps(&self) -> bool {
        self.overlap == OverlapRule::None
    }
    /// Cuts any text, not only documents of some formats.
    pub fn reads_any_text(&self) -> bool {
        self.formats.is_empty()
    }

    /// Cuts a document of `kind`.
    pub fn reads(&self, kind: crate::document::DocKind) -> bool {
        self.formats.is_empty() || self.formats.contains(&kind)
    }

    /// Reads the recursive separators (`--preset`, `--separators`).
    pub fn uses_preset(&self) -> bool {
        self.options.contains(&"--preset")
    }
}

/// A strategy built from a config, with the sizer it counts in: what a
/// [`crate::chunker::Chunker`] runs, and what `late` runs for its boundaries.
#[derive(Clone)]
pub struct Configured {
    pub config: ChunkConfig,
    pub sizer: Sizer,
    strategy: std::sync::Arc<dyn Strategy>,
}

impl std::fmt::Debug for Configured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Configured").field("config", &self.config).finish_non_exhaustive()
    }
}

impl Configured {
    /// Normalise the config and check what the strategies read (not lint's or
    /// embed text's settings: [`ChunkConfig::validate`] checks the whole),
    /// load its tokenizer, build its strategy.
    pub fn new(config: &ChunkConfig) -> Result<Self> {
        // Before anything copies or compiles a separator list.
        check_separator_limits(config)?;
        let mut config = config.clone();
        config.normalize();
        check(&config)?;
        let sizer = Sizer::for_unit(config.unit, &config.tokenizer)?;
        let strategy = (config.strategy.spec().build)(&config)?.into();
        Ok(Configured { config, sizer, strategy })
    }

    /// Cut `text`; `model` is needed by the model strategies only.
    pub fn chunk(&self, text: &str, model: Option<&dyn Embedder>, control: Control<'_>) -> Result<Vec<Chunk>> {
        self.chunk_in(text, None, model, control)
    }

    /// [`Configured::chunk`] of extracted text, with its structure for the
    /// strategies that read it; every chunk gets `meta.element` / `meta.pages`
    /// from the structure, whatever the strategy. Embed text is not attached
    /// here: [`crate::chunker::Chunker`] does that over the whole list.
    pub fn chunk_in(
        &self,
        text: &str,
        structure: Option<&crate::extract::Structure>,
        model: Option<&dyn Embedder>,
        control: Control<'_>,
    ) -> Result<Vec<Chunk>> {
        self.chunk_in_file(text, structure, None, model, control)
    }

    /// [`Configured::chunk_in`] of the file at `path`: the config's edits
    /// for that file (those that name none, and those that name it) are
    /// applied (see [`crate::edits`]).
    pub fn chunk_in_file(
        &self,
        text: &str,
        structure: Option<&crate::extract::Structure>,
        path: Option<&std::path::Path>,
        model: Option<&dyn Embedder>,
        control: Control<'_>,
    ) -> Result<Vec<Chunk>> {
        let cx = Context { config: &self.config, sizer: &self.sizer, model, control, structure, index: None };
        let resolved = self.resolve_edits(text, path);
        let mut chunks = if resolved.is_empty() {
            self.strategy.chunk(text, &cx)?
        } else {
            // The stretches between cuts, each cut on its own with the whole
            // text in view; then the joins.
            let index = cx.size_index(text)?;
            let cx = Context { index: Some(&index), ..cx };
            let stretches = crate::edits::stretches(&resolved.cuts, text.len());
            let cut = self.strategy.chunk_within(text, &stretches, &cx)?.into_iter().flatten().collect();
            crate::edits::apply(cut, &resolved, &|r| index.size(r))
        };
        // Pages and element paths first: the embed text names them.
        if let Some(s) = structure {
            s.annotate(&mut chunks);
        }
        Ok(chunks)
    }

    /// The config's edits for the file at `path` (None: those that name no
    /// file) resolved against `text`.
    pub fn resolve_edits(&self, text: &str, path: Option<&std::path::Path>) -> crate::edits::Resolved {
        crate::edits::resolve_for(&self.config.edits, text, path)
    }

    /// Whether [`Configured::chunk_each_in`] holds no chunk list (and hands
    /// chunks over in text order).
    pub fn streams(&self) -> bool {
        self.cuts_each() && self.strategy.streams()
    }

    /// The stretch around `screen` that is cut on its own (see
    /// [`Strategy::region_around`]); None where embed text or enrichment,
    /// which read the whole list, apply.
    pub fn region_around(
        &self,
        text: &str,
        structure: Option<&crate::extract::Structure>,
        screen: Range<usize>,
    ) -> Option<Range<usize>> {
        if !self.config.edits.is_empty() {
            return self.edited_region(text, screen);
        }
        self.stretch(structure, |strategy, cx| strategy.region_around(text, cx, screen))
    }

    /// With edits, the stretches between hand-made cuts are cut on their own
    /// (see [`Configured::chunk_in_file`]): the ones that meet `screen`, when
    /// they are a small part of the text and no join sits on their edges.
    /// (Edits that name a file need its path, which the screen's cut lacks:
    /// then None.)
    fn edited_region(&self, text: &str, screen: Range<usize>) -> Option<Range<usize>> {
        let whole_list = self.config.embed_text.enabled || !self.config.llm.enrich.is_empty();
        if whole_list || self.config.edits.iter().any(|e| e.file.is_some()) {
            return None;
        }
        let resolved = self.resolve_edits(text, None);
        let cuts = &resolved.cuts;
        let start = cuts[..cuts.partition_point(|&c| c <= screen.start)].last().copied().unwrap_or(0);
        let end = cuts.get(cuts.partition_point(|&c| c < screen.end)).copied().unwrap_or(text.len());
        let small = end - start <= (text.len() / 4).max(1 << 16);
        let joined_edge = resolved.joins.binary_search(&start).is_ok() || resolved.joins.binary_search(&end).is_ok();
        (small && !joined_edge).then_some(start..end)
    }

    /// A stretch around `screen` that starts where the cut starts afresh
    /// (see [`Strategy::region_from`]); None as for [`Configured::region_around`].
    pub fn region_from(
        &self,
        text: &str,
        structure: Option<&crate::extract::Structure>,
        screen: Range<usize>,
    ) -> Option<Range<usize>> {
        self.stretch(structure, |strategy, cx| strategy.region_from(text, cx, screen))
    }

    /// A stretch `find` names, where the chunks are the strategy's own.
    fn stretch(
        &self,
        structure: Option<&crate::extract::Structure>,
        find: impl FnOnce(&dyn Strategy, &Context<'_>) -> Option<Range<usize>>,
    ) -> Option<Range<usize>> {
        let cx = Context {
            config: &self.config,
            sizer: &self.sizer,
            model: None,
            control: Control::none(),
            structure,
            index: None,
        };
        self.cuts_each().then(|| find(self.strategy.as_ref(), &cx)).flatten()
    }

    /// The whole cut's chunks on `screen`, from a stretch that starts where
    /// the cut starts afresh ([`Strategy::region_from`]): its chunks cut
    /// alone that start before its last top-level chunk (the last chunk,
    /// or the last parent with its children, which the stretch's end may
    /// close early), when that one starts past the screen (so none on it is
    /// left out). A run of consecutive chunks of the whole cut holding every
    /// chunk that meets the screen; None where there is no such stretch.
    pub fn chunks_from_fresh_start(
        &self,
        text: &str,
        structure: Option<&crate::extract::Structure>,
        screen: Range<usize>,
        control: Control<'_>,
    ) -> Result<Option<Vec<Chunk>>> {
        let Some(stretch) = self.region_from(text, structure, screen.clone()) else {
            return Ok(None);
        };
        let cx = Context { config: &self.config, sizer: &self.sizer, model: None, control, structure, index: None };
        let mut chunks = self.strategy.chunk_region(text, stretch, &cx)?;
        let top = |c: &&Chunk| c.meta.level.unwrap_or(0) == 0;
        let Some(last_top) = chunks.iter().filter(top).map(|c| c.range.start).max() else {
            return Ok(None);
        };
        chunks.retain(|c| c.range.start < last_top);
        Ok((last_top >= screen.end).then_some(chunks))
    }

    /// Whether [`Configured::chunk_each_in`] holds no chunk list (chunks may
    /// come out of text order).
    pub fn holds_no_list(&self) -> bool {
        self.cuts_each() && self.strategy.holds_no_list()
    }

    /// Whether chunks can be handed over as they are cut: embed text and
    /// enrichment read the whole list (a chunk's context, fitting).
    pub fn cuts_each(&self) -> bool {
        // Edits are applied over the whole list (a join merges two chunks).
        !self.config.embed_text.enabled && self.config.llm.enrich.is_empty() && self.config.edits.is_empty()
    }

    /// The byte ranges of the chunks of `text` with no model and no
    /// structure, pushed onto `out` flat (start, end, start, end...), made
    /// without a chunk object where the strategy can
    /// ([`Strategy::offsets_into`]). `None` when the config needs the whole
    /// list (edits, embed text, enrichment) or a model: cut the chunks then.
    pub fn plain_offsets_into(&self, text: &str, out: &mut Vec<u64>) -> Option<Result<()>> {
        if !self.cuts_each() || self.config.strategy.needs_model() {
            return None;
        }
        let cx = Context {
            config: &self.config,
            sizer: &self.sizer,
            model: None,
            control: Control::none(),
            structure: None,
            index: None,
        };
        Some(self.strategy.offsets_into(text, &cx, out))
    }

    /// [`Configured::chunk_in`], each chunk handed to `emit` in order, cut by
    /// [`Strategy::chunk_each`]: no chunk list is held where the strategy can.
    pub fn chunk_each_in(
        &self,
        text: &str,
        structure: Option<&crate::extract::Structure>,
        model: Option<&dyn Embedder>,
        control: Control<'_>,
        emit: &mut dyn FnMut(Chunk),
    ) -> Result<()> {
        let cx = Context { config: &self.config, sizer: &self.sizer, model, control, structure, index: None };
        match structure {
            // Pages and element paths, as chunk_in gives them.
            Some(s) => self.strategy.chunk_each(text, &cx, &mut |mut c| {
                s.annotate(std::slice::from_mut(&mut c));
                emit(c)
            }),
            None => self.strategy.chunk_each(text, &cx, emit),
        }
    }

    /// [`Configured::chunk_each_in`] of a strategy that needs no model,
    /// handing `early` the chunks around `screen` first where the strategy
    /// can ([`Strategy::chunk_each_around`]).
    pub fn chunk_each_around_in(
        &self,
        text: &str,
        structure: Option<&crate::extract::Structure>,
        control: Control<'_>,
        screen: Range<usize>,
        early: &mut dyn FnMut(Vec<Chunk>),
        emit: &mut dyn FnMut(Chunk),
    ) -> Result<()> {
        let cx = Context { config: &self.config, sizer: &self.sizer, model: None, control, structure, index: None };
        match structure {
            // Pages and element paths, as chunk_in gives them.
            Some(s) => self.strategy.chunk_each_around(
                text,
                &cx,
                screen,
                &mut |mut around| {
                    s.annotate(&mut around);
                    early(around)
                },
                &mut |mut c| {
                    s.annotate(std::slice::from_mut(&mut c));
                    emit(c)
                },
            ),
            None => self.strategy.chunk_each_around(text, &cx, screen, early, emit),
        }
    }

    /// Whether [`Configured::chunk_each_around_in`] hands the chunks on a
    /// screen over early.
    pub fn hands_screen_early(&self) -> bool {
        self.cuts_each() && self.strategy.hands_screen_early()
    }

    /// [`Configured::chunk_within`] of the whole text as one range, each
    /// chunk handed to `emit` as it is cut: in text order where
    /// [`Configured::strategy_streams`].
    pub fn chunk_whole_each(
        &self,
        text: &str,
        model: Option<&dyn Embedder>,
        control: Control<'_>,
        emit: &mut dyn FnMut(Chunk),
    ) -> Result<()> {
        let cx = Context { config: &self.config, sizer: &self.sizer, model, control, structure: None, index: None };
        self.strategy.chunk_each(text, &cx, emit)
    }

    /// Whether the strategy itself hands chunks over in text order without
    /// holding their list (whatever else the config attaches to them).
    pub fn strategy_streams(&self) -> bool {
        self.strategy.streams()
    }

    /// The whole cut's chunks in `region` (see [`Strategy::chunk_region`]).
    pub fn chunk_region(&self, text: &str, region: Range<usize>, control: Control<'_>) -> Result<Vec<Chunk>> {
        let cx =
            Context { config: &self.config, sizer: &self.sizer, model: None, control, structure: None, index: None };
        if self.config.edits.is_empty() {
            return self.strategy.chunk_region(text, region, &cx);
        }
        // A region of whole stretches (see `edited_region`): each cut on
        // its own, then the joins, as the whole cut does.
        let resolved = self.resolve_edits(text, None);
        let index = cx.size_index(text)?;
        let cx = Context { index: Some(&index), ..cx };
        let inner: Vec<usize> =
            resolved.cuts.iter().filter(|&&c| region.start < c && c < region.end).map(|&c| c - region.start).collect();
        let stretches: Vec<Range<usize>> = crate::edits::stretches(&inner, region.end - region.start)
            .into_iter()
            .map(|r| r.start + region.start..r.end + region.start)
            .collect();
        let cut = self.strategy.chunk_within(text, &stretches, &cx)?.into_iter().flatten().collect();
        Ok(crate::edits::apply(cut, &resolved, &|r| index.size(r)))
    }

    /// Cut each of `ranges` of `text` on its own (see [`Strategy::chunk_within`]).
    pub fn chunk_within(
        &self,
        text: &str,
        ranges: &[Range<usize>],
        model: Option<&dyn Embedder>,
        control: Control<'_>,
    ) -> Result<Vec<Vec<Chunk>>> {
        self.chunk_within_indexed(text, ranges, None, model, control)
    }

    /// [`Configured::chunk_within`] with `text`'s size index in this
    /// config's unit, when the caller has it.
    pub fn chunk_within_indexed(
        &self,
        text: &str,
        ranges: &[Range<usize>],
        index: Option<&SizeIndex<'_>>,
        model: Option<&dyn Embedder>,
        control: Control<'_>,
    ) -> Result<Vec<Vec<Chunk>>> {
        let cx = Context { config: &self.config, sizer: &self.sizer, model, control, structure: None, index };
        self.strategy.chunk_within(text, ranges, &cx)
    }
}

/// Most separators a config may list (`recursive.separators`,
/// `langchain.separators`): each one is compiled and searched for.
pub const MAX_SEPARATORS: usize = 1000;
/// Most bytes all separators of a config may hold together.
pub const MAX_SEPARATOR_BYTES: usize = 64 * 1024;

/// Refuse separator lists too long or too big to compile and search with
/// bounded memory. Called by [`Configured::new`] before anything copies or
/// compiles them (`ChunkConfig::validate` calls it too, so that `config
/// check` reports the same).
pub(crate) fn check_separator_limits(config: &ChunkConfig) -> Result<()> {
    let lists = [
        ("recursive.separators (--separators)", config.recursive.separators.as_deref().unwrap_or_default()),
        ("langchain.separators (--separators)", config.langchain.separators.as_deref().unwrap_or_default()),
        ("langchain.separator (--separator)", std::slice::from_ref(&config.langchain.separator)),
    ];
    for (name, list) in lists {
        if list.len() > MAX_SEPARATORS {
            return Err(Error::config(format!(
                "{name} lists {} separators; at most {MAX_SEPARATORS} are allowed: keep the ones that matter \
                 (or join literal alternatives into one regex)",
                list.len()
            )));
        }
        let bytes: usize = list.iter().map(String::len).sum();
        if bytes > MAX_SEPARATOR_BYTES {
            return Err(Error::config(format!(
                "{name} holds {bytes} bytes of separators; at most {MAX_SEPARATOR_BYTES} are allowed: use fewer or \
                 shorter separators"
            )));
        }
    }
    Ok(())
}

/// Compiled size allowed to one separator regex (the `regex` crate's
/// `size_limit` and lazy-DFA cache; fancy-regex's delegates)...
const REGEX_SIZE_ONE: usize = 1 << 20;
/// ...and to all the separator regexes of one chunker together: with many
/// regexes each gets `REGEX_SIZE_TOTAL / count`.
pub const REGEX_SIZE_TOTAL: usize = 32 << 20;

/// The compiled-size limit of each of `count` separator regexes.
pub(crate) fn regex_size_limit(count: usize) -> usize {
    REGEX_SIZE_ONE.min(REGEX_SIZE_TOTAL / count.max(1))
}

/// The message for a separator regex over its compiled-size limit.
pub(crate) fn regex_too_big(raw: &str, limit: usize, count: usize) -> Error {
    let with = if count > 1 { format!(" with {count} regex separators") } else { String::new() };
    Error::config(format!(
        "separator regex '{raw}' is too big once compiled (limit {} KiB{with}): simplify it (fewer alternatives, \
         smaller repetition counts like {{1000}}) or list fewer separators",
        limit >> 10
    ))
}

/// Attach sizes to ranges.
pub fn ranges_to_chunks(ranges: Vec<Range<usize>>, index: &SizeIndex<'_>) -> Vec<Chunk> {
    ranges.into_iter().map(|r| sized(r, index)).collect()
}

/// The chunks [`Strategy::chunk_each`] hands over, as a list: `chunk` for
/// the strategies whose cutting is written once, as `chunk_each`.
pub fn collect_each(strategy: &dyn Strategy, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
    let mut chunks = Vec::new();
    strategy.chunk_each(text, cx, &mut |c| chunks.push(c))?;
    Ok(chunks)
}

/// The chunk of range `r`, measured with `index`.
pub fn sized(r: Range<usize>, index: &SizeIndex<'_>) -> Chunk {
    let size = index.size(r.clone());
    Chunk::new(r, size)
}
