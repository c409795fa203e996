# Type information of the package apsp (PEP 561, with py.typed): the public functions and the
# Solver as __init__.py, _solve.py, _sources.py, _paths.py, _batch.py and _tables.py define
# them. The overloads give return_predecessors=True its tuple, so that a caller's code checks
# under mypy --strict (tests/python/test_style.py).
from collections.abc import Callable, Hashable, Iterable
from types import TracebackType
from typing import Any, Literal, Protocol, TypedDict, overload

# Unpack from typing_extensions: typing has it from 3.11 only, and the package serves 3.9 on
# (a stub is read by the type checker alone, which ships typing_extensions' stubs).
from typing_extensions import Unpack

import numpy as np
import numpy.typing as npt

__version__: str
__all__: list[str]

INF32: int
INF64: int
PREDECESSOR_TOLERANCE: dict[np.dtype[Any], float]

Progress = Callable[[int, int], object]
Device = int | str | None
Float = npt.NDArray[np.floating[Any]]
Pred = npt.NDArray[np.int32]

class Error(RuntimeError): ...
class DeviceError(Error): ...
class NegativeCycleError(Exception): ...

def devices() -> list[dict[str, Any]]: ...
def release() -> None: ...
def unreachable(dtype: npt.DTypeLike) -> int | float: ...
def reconstruct_path(predecessors: npt.ArrayLike, i: int, j: int) -> list[int]: ...
def construct_dist_matrix(
    graph: Any, predecessors: npt.ArrayLike, directed: bool = ..., null_value: float = ...
) -> npt.NDArray[np.float64]: ...
@overload
def floyd_warshall(
    csgraph: Any,
    directed: bool = ...,
    return_predecessors: Literal[False] = ...,
    unweighted: bool = ...,
    overwrite: bool = ...,
    *,
    device: Device = ...,
    tile: int | None = ...,
    dtype: npt.DTypeLike = ...,
    progress: Progress | None = ...,
) -> npt.NDArray[Any]: ...
@overload
def floyd_warshall(
    csgraph: Any,
    directed: bool,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    overwrite: bool = ...,
    *,
    device: Device = ...,
    tile: int | None = ...,
    dtype: npt.DTypeLike = ...,
    progress: Progress | None = ...,
) -> tuple[npt.NDArray[Any], Pred]: ...
@overload
def floyd_warshall(
    csgraph: Any,
    directed: bool = ...,
    *,
    return_predecessors: Literal[True],
    unweighted: bool = ...,
    overwrite: bool = ...,
    device: Device = ...,
    tile: int | None = ...,
    dtype: npt.DTypeLike = ...,
    progress: Progress | None = ...,
) -> tuple[npt.NDArray[Any], Pred]: ...

# floyd_warshall_batch: padded arrays, or lists of per-graph arrays with packed=True (one flat
# array of their blocks with packed="flat"); like=t
# returns t's array type (a torch.Tensor, ...), which the stubs leave as Any. The keywords that
# do not change the result's type are _BatchOptions, written once.
Sizes = npt.NDArray[np.int64]

class _BatchOptions(TypedDict, total=False):
    edge_index: Any
    edge_weight: Any
    num_nodes: Any
    batch: Any
    dtype: npt.DTypeLike
    solver: Solver | None

@overload
def floyd_warshall_batch(
    graphs: Iterable[Any] | None = ...,
    directed: bool = ...,
    unweighted: bool = ...,
    return_predecessors: Literal[False] = ...,
    max_distance: float | None = ...,
    *,
    packed: Literal[False, "flat"] = ...,
    like: None = ...,
    out: npt.NDArray[Any] | None = ...,
    **options: Unpack[_BatchOptions],
) -> tuple[npt.NDArray[Any], Sizes]: ...
@overload
def floyd_warshall_batch(
    graphs: Iterable[Any] | None = ...,
    directed: bool = ...,
    unweighted: bool = ...,
    return_predecessors: Literal[False] = ...,
    max_distance: float | None = ...,
    *,
    packed: Literal[True],
    like: None = ...,
    **options: Unpack[_BatchOptions],
) -> tuple[list[npt.NDArray[Any]], Sizes]: ...
@overload
def floyd_warshall_batch(
    graphs: Iterable[Any] | None = ...,
    directed: bool = ...,
    unweighted: bool = ...,
    *,
    return_predecessors: Literal[True],
    max_distance: float | None = ...,
    packed: Literal[False, "flat"] = ...,
    like: None = ...,
    out: npt.NDArray[Any] | None = ...,
    **options: Unpack[_BatchOptions],
) -> tuple[npt.NDArray[Any], Pred, Sizes]: ...
@overload
def floyd_warshall_batch(
    graphs: Iterable[Any] | None = ...,
    directed: bool = ...,
    unweighted: bool = ...,
    *,
    return_predecessors: Literal[True],
    max_distance: float | None = ...,
    packed: Literal[True],
    like: None = ...,
    **options: Unpack[_BatchOptions],
) -> tuple[list[npt.NDArray[Any]], list[Pred], Sizes]: ...
@overload
def floyd_warshall_batch(  # like=t, or a return_predecessors known only when it runs
    graphs: Iterable[Any] | None = ...,
    directed: bool = ...,
    unweighted: bool = ...,
    return_predecessors: bool = ...,
    max_distance: float | None = ...,
    *,
    packed: bool | Literal["flat"] = ...,
    like: Any = ...,
    out: npt.NDArray[Any] | None = ...,
    **options: Unpack[_BatchOptions],
) -> tuple[Any, ...]: ...
def edge_paths(
    pred: Any,
    edge_index: Any,
    max_length: int,
    *,
    num_nodes: Any = ...,
    batch: Any = ...,
    directed: bool = ...,
) -> npt.NDArray[np.int64]: ...

# from_pandas takes and returns a pandas.DataFrame, from_arrow a pyarrow.Table: Any here, since
# neither library is a requirement of the package nor ships type information mypy reads without
# extra stub packages (pandas-stubs).
def from_pandas(
    df: Any,
    source: Hashable = ...,
    target: Hashable = ...,
    weight: Hashable | None = ...,
    directed: bool = ...,
    limit: float | None = ...,
    sources: Any = ...,
    *,
    solver: Solver | None = ...,
) -> Any: ...
def from_arrow(
    table: Any,
    source: str = ...,
    target: str = ...,
    weight: str | None = ...,
    directed: bool = ...,
    limit: float | None = ...,
    sources: Any = ...,
    *,
    solver: Solver | None = ...,
) -> Any: ...

class _ShortestPath(Protocol):
    @overload
    def __call__(
        self,
        csgraph: Any,
        method: str = ...,
        directed: bool = ...,
        return_predecessors: Literal[False] = ...,
        unweighted: bool = ...,
        overwrite: bool = ...,
        indices: npt.ArrayLike | None = ...,
        *,
        progress: Progress | None = ...,
    ) -> Float: ...
    @overload
    def __call__(
        self,
        csgraph: Any,
        method: str = ...,
        directed: bool = ...,
        *,
        return_predecessors: Literal[True],
        unweighted: bool = ...,
        overwrite: bool = ...,
        indices: npt.ArrayLike | None = ...,
        progress: Progress | None = ...,
    ) -> tuple[Float, Pred]: ...

class _Dijkstra(Protocol):
    @overload
    def __call__(
        self,
        csgraph: Any,
        directed: bool = ...,
        indices: npt.ArrayLike | None = ...,
        return_predecessors: Literal[False] = ...,
        unweighted: bool = ...,
        limit: float = ...,
        min_only: bool = ...,
        *,
        progress: Progress | None = ...,
    ) -> Float: ...
    @overload
    def __call__(
        self,
        csgraph: Any,
        directed: bool = ...,
        indices: npt.ArrayLike | None = ...,
        *,
        return_predecessors: Literal[True],
        unweighted: bool = ...,
        limit: float = ...,
        min_only: Literal[False] = ...,
        progress: Progress | None = ...,
    ) -> tuple[Float, Pred]: ...
    @overload
    def __call__(
        self,
        csgraph: Any,
        directed: bool = ...,
        indices: npt.ArrayLike | None = ...,
        *,
        return_predecessors: Literal[True],
        unweighted: bool = ...,
        limit: float = ...,
        min_only: Literal[True],
        progress: Progress | None = ...,
    ) -> tuple[Float, Pred, Pred]: ...

# johnson and bellman_ford
class _FromSources(Protocol):
    @overload
    def __call__(
        self,
        csgraph: Any,
        directed: bool = ...,
        indices: npt.ArrayLike | None = ...,
        return_predecessors: Literal[False] = ...,
        unweighted: bool = ...,
        *,
        progress: Progress | None = ...,
    ) -> Float: ...
    @overload
    def __call__(
        self,
        csgraph: Any,
        directed: bool = ...,
        indices: npt.ArrayLike | None = ...,
        *,
        return_predecessors: Literal[True],
        unweighted: bool = ...,
        progress: Progress | None = ...,
    ) -> tuple[Float, Pred]: ...

# The module-level functions are the default Solver's methods, of the same types.
shortest_path: _ShortestPath
dijkstra: _Dijkstra
johnson: _FromSources
bellman_ford: _FromSources

class Solver:
    last_report: dict[str, Any] | None
    def __init__(
        self,
        device: Device = ...,
        backend: str | None = ...,
        tile: int | None = ...,
        threads: int | None = ...,
        *,
        device_memory: int | None = ...,
        float_kernels: bool = ...,
    ) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> Solver: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None: ...
    def solve_matrix(
        self, w: npt.NDArray[Any], progress: Progress | None = ..., **predecessors: Any
    ) -> npt.NDArray[Any]: ...
    @overload
    def floyd_warshall(
        self,
        csgraph: Any,
        directed: bool = ...,
        return_predecessors: Literal[False] = ...,
        unweighted: bool = ...,
        overwrite: bool = ...,
        *,
        dtype: npt.DTypeLike = ...,
        progress: Progress | None = ...,
    ) -> npt.NDArray[Any]: ...
    @overload
    def floyd_warshall(
        self,
        csgraph: Any,
        directed: bool = ...,
        *,
        return_predecessors: Literal[True],
        unweighted: bool = ...,
        overwrite: bool = ...,
        dtype: npt.DTypeLike = ...,
        progress: Progress | None = ...,
    ) -> tuple[npt.NDArray[Any], Pred]: ...
    shortest_path: _ShortestPath
    dijkstra: _Dijkstra
    johnson: _FromSources
    bellman_ford: _FromSources
