//! Finding and opening `libfdb_c`: the places searched, in order, and
//! what each one gave.

use std::ffi::{CStr, OsString, c_char, c_int, c_void};
use std::fmt;
use std::path::{Path, PathBuf};

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};

use crate::Functions;

/// The variable that names the library, or the directory holding it.
pub const LIB_PATH_ENV: &str = "FDB_CLIENT_LIB_PATH";

/// The oldest API version fql's bindings speak: FDB 7.3's.
pub const MIN_API_VERSION: c_int = 730;

/// The library's file name, which the dynamic loader searches for too.
#[cfg(target_os = "macos")]
pub const FILE_NAME: &str = "libfdb_c.dylib";
#[cfg(not(target_os = "macos"))]
pub const FILE_NAME: &str = "libfdb_c.so";

/// Where FoundationDB's client packages install the library.
#[cfg(target_os = "macos")]
const INSTALLED: &[&str] = &["/usr/local/lib/libfdb_c.dylib"];
#[cfg(not(target_os = "macos"))]
const INSTALLED: &[&str] = &[
    "/usr/lib/libfdb_c.so",
    "/usr/lib64/libfdb_c.so",
    "/usr/local/lib/libfdb_c.so",
    "/usr/lib/x86_64-linux-gnu/libfdb_c.so",
];

/// A place to look for the library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// What `FDB_CLIENT_LIB_PATH` names: the file, or `libfdb_c` in the
    /// directory it names.
    Env(PathBuf),
    /// A usual install location.
    Installed(PathBuf),
    /// The plain file name, for the dynamic loader's own search
    /// (`LD_LIBRARY_PATH`, its cache, the system directories).
    Loader,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Env(path) => write!(f, "{LIB_PATH_ENV}={}", path.display()),
            Place::Installed(path) => write!(f, "{}", path.display()),
            Place::Loader => write!(
                f,
                "{FILE_NAME} through the dynamic loader's search (LD_LIBRARY_PATH, the system's library directories)"
            ),
        }
    }
}

/// Why a place gave no usable library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Nothing there.
    Missing,
    /// Something the dynamic loader would not open (the loader's words).
    NotLoadable(String),
    /// A library without this function of the client's.
    NoSymbol(&'static str),
    /// A client whose newest API version is older than 7.3's.
    TooOld(c_int),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Missing => f.write_str("no such file"),
            Refusal::NotLoadable(why) => write!(f, "not a loadable library ({why})"),
            Refusal::NoSymbol(name) => {
                write!(f, "not a FoundationDB client library (it lacks {name})")
            }
            Refusal::TooOld(version) => write!(
                f,
                "a client of API version {version}, older than FoundationDB 7.3 ({MIN_API_VERSION})"
            ),
        }
    }
}

/// Every place searched, and why none served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    pub tried: Vec<(Place, Refusal)>,
}

impl LoadError {
    /// Whether no place had a file at all, rather than one unusable.
    pub fn not_found(&self) -> bool {
        self.tried.iter().all(|(_, why)| *why == Refusal::Missing)
    }

    /// The places and refusals on one line, `; ` between them.
    pub fn reasons(&self) -> String {
        let tried: Vec<String> = self
            .tried
            .iter()
            .map(|(place, why)| format!("{place}: {why}"))
            .collect();
        tried.join("; ")
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "cannot load the FoundationDB client library ({FILE_NAME}):"
        )?;
        for (place, why) in &self.tried {
            writeln!(f, "  {place}: {why}")?;
        }
        write!(
            f,
            "  install the FoundationDB client package (foundationdb-clients 7.3 or later), \
             or set {LIB_PATH_ENV} to the library or the directory holding it"
        )
    }
}

impl std::error::Error for LoadError {}

/// A loaded client library: where it came from, what it says it is, and
/// its functions. It is never unloaded: FDB's network thread and the
/// callbacks it runs live as long as the process.
pub struct Client {
    path: PathBuf,
    version: String,
    max_api_version: c_int,
    pub(crate) functions: Functions,
    _library: Library,
}

impl Client {
    /// The file the library was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `fdb_get_client_version()`: the release, then the source version
    /// and protocol, comma-separated (`7.3.27,<source>,fdb00b073000000`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The release alone: the version's first field.
    pub fn release(&self) -> &str {
        self.version.split(',').next().unwrap_or_default()
    }

    /// `fdb_get_max_api_version()`.
    pub fn max_api_version(&self) -> c_int {
        self.max_api_version
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("path", &self.path)
            .field("version", &self.version)
            .field("max_api_version", &self.max_api_version)
            .finish_non_exhaustive()
    }
}

/// The places to search, given `FDB_CLIENT_LIB_PATH`'s value: when it is
/// set, only what it names, since a user who names a library means that
/// one and would be misled by another one found elsewhere.
pub fn places(env: Option<OsString>) -> Vec<Place> {
    if let Some(value) = env.filter(|v| !v.is_empty()) {
        let path = PathBuf::from(value);
        let file = if path.is_dir() {
            path.join(FILE_NAME)
        } else {
            path
        };
        // A name without a slash would send dlopen to its own search.
        let file = std::path::absolute(&file).unwrap_or(file);
        return vec![Place::Env(file)];
    }
    let mut places: Vec<Place> = INSTALLED
        .iter()
        .map(|p| Place::Installed(PathBuf::from(p)))
        .collect();
    places.push(Place::Loader);
    places
}

/// Searches `places` in order and loads the first usable library.
pub fn search(places: &[Place]) -> Result<Client, LoadError> {
    let mut tried = Vec::new();
    for place in places {
        match open(place) {
            Ok(client) => return Ok(client),
            Err(why) => tried.push((place.clone(), why)),
        }
    }
    Err(LoadError { tried })
}

/// Opens the library at one place and checks it is a client of 7.3 or
/// later with every function the bindings call.
fn open(place: &Place) -> Result<Client, Refusal> {
    let target = match place {
        Place::Env(path) | Place::Installed(path) => {
            if !path.exists() {
                return Err(Refusal::Missing);
            }
            path.as_os_str()
        }
        Place::Loader => FILE_NAME.as_ref(),
    };
    // SAFETY: opening runs the library's initialisers; a file at these
    // places is taken to be FoundationDB's client, as every binding does.
    #[allow(unsafe_code)]
    let library =
        unsafe { Library::open(Some(target), RTLD_NOW | RTLD_LOCAL) }.map_err(|e| match place {
            Place::Loader if missing_from_search(&e) => Refusal::Missing,
            _ => Refusal::NotLoadable(loader_words(&e)),
        })?;
    let max_api_version = max_api_version(&library)?;
    if max_api_version < MIN_API_VERSION {
        return Err(Refusal::TooOld(max_api_version));
    }
    let functions = Functions::resolve(&library).map_err(Refusal::NoSymbol)?;
    // SAFETY: the header's signature; the string is static in the library.
    #[allow(unsafe_code)]
    let version = unsafe { text((functions.fdb_get_client_version)()) };
    let path = match place {
        Place::Env(path) | Place::Installed(path) => path.clone(),
        Place::Loader => loaded_from(functions.fdb_get_client_version as *const c_void)
            .map(|p| std::path::absolute(&p).unwrap_or(p))
            .unwrap_or_else(|| PathBuf::from(FILE_NAME)),
    };
    Ok(Client {
        path,
        version,
        max_api_version,
        functions,
        _library: library,
    })
}

/// `fdb_get_max_api_version()`, asked before anything else: it is the one
/// call the C API allows before an API version is selected.
fn max_api_version(library: &Library) -> Result<c_int, Refusal> {
    const NAME: &str = "fdb_get_max_api_version";
    // SAFETY: the header's signature.
    #[allow(unsafe_code)]
    unsafe {
        let f = library
            .get::<unsafe extern "C" fn() -> c_int>(b"fdb_get_max_api_version\0")
            .map_err(|_| Refusal::NoSymbol(NAME))?;
        Ok(f())
    }
}

/// A C string the library owns, as text; empty for a null pointer.
///
/// # Safety
///
/// `p` is null or a NUL-terminated string that outlives the call.
#[allow(unsafe_code)]
unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: the caller's promise.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The file the dynamic loader took the function at `address` from.
fn loaded_from(address: *const c_void) -> Option<PathBuf> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: dladdr only reads the address and fills `info`.
    #[allow(unsafe_code)]
    let found = unsafe { libc::dladdr(address, info.as_mut_ptr()) };
    // SAFETY: filled in when dladdr returns non-zero.
    #[allow(unsafe_code)]
    let info = unsafe { info.assume_init() };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated name the loader keeps while it is loaded.
    #[allow(unsafe_code)]
    let name = unsafe { text(info.dli_fname) };
    Some(PathBuf::from(name))
}

/// The dynamic loader's message, without the file name it repeats.
fn loader_words(e: &libloading::Error) -> String {
    let words = match e {
        libloading::Error::DlOpen { desc } => format!("{desc:?}"),
        e => e.to_string(),
    };
    let words = words.trim_matches('"');
    words
        .rsplit_once(": ")
        .map_or(words, |(_, last)| last)
        .to_string()
}

/// Whether the loader's search found no file of that name at all.
fn missing_from_search(e: &libloading::Error) -> bool {
    loader_words(e).contains("No such file")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_alone_is_searched_when_set() {
        let dir = std::env::temp_dir();
        let places = places(Some(dir.clone().into_os_string()));
        assert_eq!(places, vec![Place::Env(dir.join(FILE_NAME))]);
        let file = places_of("/opt/fdb/libfdb_c.so.7");
        assert_eq!(file, vec![Place::Env("/opt/fdb/libfdb_c.so.7".into())]);
    }

    fn places_of(value: &str) -> Vec<Place> {
        places(Some(value.into()))
    }

    #[test]
    fn unset_or_empty_searches_install_locations_then_the_loader() {
        for env in [None, Some(OsString::new())] {
            let places = places(env);
            assert_eq!(places.last(), Some(&Place::Loader));
            assert_eq!(
                places[0],
                Place::Installed(INSTALLED[0].into()),
                "{places:?}"
            );
            assert_eq!(places.len(), INSTALLED.len() + 1);
        }
    }

    #[test]
    fn a_missing_file_and_a_file_that_is_not_a_library_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        let missing = dir.join("none.so");
        let text = dir.join("text.so");
        std::fs::write(&text, "not a library\n").unwrap();
        let err = search(&[Place::Env(missing.clone()), Place::Env(text.clone())]).unwrap_err();
        assert_eq!(err.tried[0], (Place::Env(missing), Refusal::Missing));
        assert!(
            matches!(&err.tried[1].1, Refusal::NotLoadable(why) if !why.is_empty()),
            "{err}"
        );
        let shown = err.to_string();
        assert!(
            shown.contains("install the FoundationDB client package"),
            "{shown}"
        );
        assert!(shown.contains(LIB_PATH_ENV), "{shown}");
    }

    #[test]
    fn a_library_without_the_client_functions_is_not_a_client() {
        // The C library this test runs on: loadable, and no FDB client.
        let libc = loaded_from(libc::malloc as *const c_void).expect("libc's file");
        match open(&Place::Env(libc)) {
            Err(Refusal::NoSymbol(name)) => assert_eq!(name, "fdb_get_max_api_version"),
            other => panic!("{other:?}"),
        }
    }
}
