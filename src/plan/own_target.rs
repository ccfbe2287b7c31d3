//! What `propose` plans for: the environment's own target, and the targets that apply there.
//!
//! In: the environment selection (with `--python-version` / `--python-platform`) and the
//! targets asked. Out: the [`Inventory`] read (refused when the flags name another Python or
//! platform than its own) and the targets whose markers hold in it (the others noted on
//! stderr, in pip's words).

use pep508_rs::{MarkerEnvironment, Requirement};

use crate::inventory::{self, EnvironmentSelection, Inventory};
use crate::printer::Printer;

/// The environment, refusing `--python-version` / `--python-platform` when they name another
/// Python or platform than its own: a plan changes the environment it reads, and its commands
/// install with that environment's interpreter, so a plan for Python 3.12 made from a 3.10 venv
/// would hand pip wheels it refuses. (A patch release of the same X.Y is the same target.)
pub(crate) fn load_own_target(selection: &EnvironmentSelection) -> miette::Result<Inventory> {
    let own = inventory::load(&EnvironmentSelection {
        python_version: None,
        python_platform: None,
        ..selection.clone()
    })?;
    let planned = inventory::apply_overrides(
        own.clone(),
        selection.python_version.as_ref(),
        selection.python_platform.as_ref(),
    )?;
    let (was, is) = (&own.environment.markers, &planned.environment.markers);
    let python_differs = was.python_version() != is.python_version();
    let platform_differs =
        was.sys_platform() != is.sys_platform() || was.platform_machine() != is.platform_machine();
    if !python_differs && !platform_differs {
        return Ok(planned);
    }
    let asked = match (python_differs, platform_differs) {
        (true, true) => format!(
            "Python {} on {} {}",
            is.python_version(),
            is.sys_platform(),
            is.platform_machine()
        ),
        (true, false) => format!("Python {}", is.python_version()),
        _ => format!("{} {}", is.sys_platform(), is.platform_machine()),
    };
    Err(miette::miette!(
        help = "drop --python-version / --python-platform to plan for this environment; to plan \
                for another Python or platform, read an environment of it (`--venv` of such a \
                venv, or `--from-snapshot` of one), or resolve requirements for it with \
                `planner resolve --python-version X.Y REQ...`",
        "propose plans for the environment it reads, whose interpreter is Python {} on {} {}; \
         a plan for {asked} cannot be installed with it",
        own.environment.python_version,
        was.sys_platform(),
        was.platform_machine()
    ))
}

/// The targets whose markers hold in this environment. The others are ignored with pip's own
/// words on stderr ("Ignoring django: markers '...' don't match your environment").
pub(crate) fn applicable_targets(
    targets: &[Requirement],
    markers: &MarkerEnvironment,
    printer: &Printer,
) -> Vec<Requirement> {
    targets
        .iter()
        .filter(|target| {
            let applies = target.marker.evaluate(markers, &[]);
            if !applies {
                printer.note(&format!(
                    "Ignoring {}: markers '{}' don't match your environment",
                    target.name,
                    target
                        .marker
                        .try_to_string()
                        .unwrap_or_default()
                        .replace('\'', "\"")
                ));
            }
            applies
        })
        .cloned()
        .collect()
}
