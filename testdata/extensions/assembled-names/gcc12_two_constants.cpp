#include <string>
void LoadModule(const std::string &name);
void LoadPandasArrowDtype() { LoadModule("pandas.core.arrays.arrow.dtype"); }
