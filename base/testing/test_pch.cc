// The one source of hwt_test_pch, the target that builds the precompiled
// header every test reuses (hwt_test in cmake/HwtHelpers.cmake). It needs
// no code: the header is built from the list given there.
