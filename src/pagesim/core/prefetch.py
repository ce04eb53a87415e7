"""A software prefetch hint for compiled kernels (a no-op in plain Python).

Simulation over more pages than the last-level cache holds is bound by memory latency: each
access touches its page's list node and flags at a random place. Issuing ``llvm.prefetch`` for the
page a few accesses ahead overlaps those misses with the work on the current one. Results never
depend on it.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

__all__ = ["prefetch", "prefetch_row_end"]


def prefetch(arr, index):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """Hint the CPU to load row ``index`` of ``arr`` into cache; no effect on results.

    Parameters
    ----------
    arr : numpy.ndarray, 1-d or 2-d, C-contiguous
        For a 2-d array the whole row ``arr[index]`` starts loading (its first cache line).
    index : int
        Row index; it need not be in bounds (a prefetch never faults).
    """
    return None


def prefetch_row_end(arr, index):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """Hint the CPU to load the cache line holding the last element of row ``index`` of the
    2-d ``arr`` (with :func:`prefetch`, both lines of a row that spans two); no effect on results.
    """
    return None


def _emit_prefetch(builder, ptr):  # type: ignore[no-untyped-def]
    i8p = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
    name = "llvm.prefetch.p0"
    fn = builder.module.globals.get(name) or ir.Function(builder.module, fnty, name=name)
    # rw = 0 (read), locality = 3 (keep in all levels), cache type = 1 (data)
    builder.call(
        fn,
        [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)],
    )


@intrinsic
def _prefetch_row_end(typingctx, arr, index):  # type: ignore[no-untyped-def]
    sig = types.void(arr, index)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        row = context.cast(builder, args[1], signature.args[1], types.intp)
        ncols = builder.extract_value(ary.shape, 1)
        one = ir.Constant(row.type, 1)
        last = builder.sub(builder.mul(builder.add(row, one), ncols), one)
        _emit_prefetch(builder, builder.gep(ary.data, [last]))
        return context.get_dummy_value()

    return sig, codegen


@overload(prefetch_row_end)
def _prefetch_row_end_overload(arr, index):  # type: ignore[no-untyped-def]
    if not isinstance(arr, types.Array) or arr.ndim != 2 or arr.layout != "C":
        return None

    def impl(arr, index):  # type: ignore[no-untyped-def]
        _prefetch_row_end(arr, index)

    return impl


@intrinsic
def _prefetch(typingctx, arr, index):  # type: ignore[no-untyped-def]
    sig = types.void(arr, index)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        offset = context.cast(builder, args[1], signature.args[1], types.intp)  # an int32 id too
        if aryty.ndim == 2:
            ncols = builder.extract_value(ary.shape, 1)
            offset = builder.mul(offset, ncols)
        _emit_prefetch(builder, builder.gep(ary.data, [offset]))
        return context.get_dummy_value()

    return sig, codegen


@overload(prefetch)
def _prefetch_overload(arr, index):  # type: ignore[no-untyped-def]
    if not isinstance(arr, types.Array) or arr.ndim not in (1, 2) or arr.layout != "C":
        return None

    def impl(arr, index):  # type: ignore[no-untyped-def]
        _prefetch(arr, index)

    return impl
