// The main of the MPI tests: every rank runs every test (the distributed calls are collective);
// rank 0 prints the usual report, the other ranks only their failures, and the exit status is
// non-zero when a test failed on any rank.
#include <mpi.h>

#include <gtest/gtest.h>

#include <iostream>
#include <string>

namespace {

// The failures of a rank other than 0, each a line naming the rank and the test.
class FailurePrinter : public ::testing::EmptyTestEventListener {
public:
    explicit FailurePrinter(int rank) : rank_(rank) {}
    void OnTestStart(const ::testing::TestInfo& test) override {
        test_ = std::string(test.test_suite_name()) + "." + test.name();
    }
    void OnTestPartResult(const ::testing::TestPartResult& r) override {
        if (!r.failed()) return;
        std::cout << "[rank " << rank_ << "] " << test_ << " " << (r.file_name() ? r.file_name() : "") << ":"
                  << r.line_number() << ": " << r.summary() << std::endl;
    }

private:
    int rank_;
    std::string test_;
};

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new FailurePrinter(rank));
    }
    int failed = RUN_ALL_TESTS() != 0, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any;
}
