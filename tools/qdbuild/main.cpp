// qdbuild: ahead-of-time builder for Quadrants kernels. Everything lives in the libraries; this
// only hands the command line to the driver (src/driver/driver.cpp).
#include "driver/driver.hpp"

int main(int argc, char** argv) { return qd::driver::run(argc, argv); }
