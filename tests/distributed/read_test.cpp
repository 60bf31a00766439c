// The parallel read against the serial reader: the same matrix from .mtx and .tns files (with
// and without a shape comment, symmetric, array vectors), and the same error, naming the same
// line, for a bad line anywhere in the file.
#include "mpi_test_util.hpp"

#include <unistd.h>

#include <fstream>

#include "siskin/error.hpp"
#include "siskin/io.hpp"

namespace siskin::distributed::testing {
namespace {

// Files every rank can read, written by rank 0 (a name of its own per file: a rank may still be
// reading the previous file when rank 0 writes the next), removed at the end of the test.
class SharedFiles {
public:
    SharedFiles(const SharedFiles&) = delete;
    SharedFiles() = default;
    ~SharedFiles() {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank() == 0)
            for (const auto& path : paths_) std::filesystem::remove(path);
    }
    std::string add(const std::string& name, const std::string& text) {
        std::string path = std::filesystem::temp_directory_path() /
                           ("siskin-mpi-" + std::to_string(::getppid()) + "-" + name);
        if (rank() == 0) std::ofstream(path) << text;
        MPI_Barrier(MPI_COMM_WORLD);
        paths_.push_back(path);
        return path;
    }

private:
    std::vector<std::string> paths_;
};

// The error message of `read` (every rank's), or "" when it read.
TEST(DistributedRead, FilesEqualTheSerialRead) {
    SharedFiles files_on_disk;
    const std::vector<std::pair<std::string, std::string>> files{
        {"general.mtx", "%%MatrixMarket matrix coordinate real general\n% a comment\n4 5 6\n1 1 1.5\n"
                        "2 5 -2\n\n3 3 4\n% between entries\n4 1 8\n4 4 1e3\n1 5 7\n"},
        {"symmetric.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n5 5 5\n1 1 3\n3 1 4\n"
                          "5 2 -1\n4 4 2\n5 5 9\n"},
        {"pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n3 1\n"},
        {"array.mtx", "%%MatrixMarket matrix array real general\n2 3\n1\n2\n0\n4\n5\n6\n"},
        {"header.tns", "# shape: 6 4\n# fill: 0\n1 1 2.5\n6 4 -1\n3 2 7\n\n2 2 1\n"},
        {"bare.tns", "1 2 3\n4 1 5\n2 2 6\n"},
    };
    for (const auto& [name, text] : files) {
        SCOPED_TRACE(name);
        std::string path = files_on_disk.add(name, text);
        DistributedMatrix a = DistributedMatrix::read(path, MPI_COMM_WORLD);
        std::optional<Tensor> whole = a.gather(0);
        if (rank() == 0) {
            Tensor serial = read_tensor(path);
            EXPECT_TRUE(whole->equals(serial.convert(whole->format())));
            EXPECT_EQ(whole->stored(), serial.convert(whole->format()).stored());
        }
    }
    // Vectors: an n x 1 coordinate file and a .tns vector, partitioned as given.
    for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
             {"vector.mtx", "%%MatrixMarket matrix coordinate real general\n5 1 3\n1 1 2\n4 1 3\n5 1 -1\n"},
             {"vector.tns", "# shape: 5\n2 4\n5 1\n"}}) {
        SCOPED_TRACE(name);
        std::string path = files_on_disk.add(name, text);
        DistributedVector v = DistributedVector::read(path, RowPartition::even(5, MPI_COMM_WORLD));
        std::optional<Tensor> whole = v.gather(0);
        if (rank() == 0) {
            ReadOptions one;
            one.ndims = 1;
            EXPECT_TRUE(whole->equals(read_tensor(path, one)));
        }
    }
}

TEST(DistributedRead, ABadLineGivesTheSerialError) {
    SharedFiles files_on_disk;
    // Twelve good lines, one bad one at each place in turn: whichever rank parses it, every rank
    // throws the serial reader's message with the file's line number.
    for (const char* ext : {".mtx", ".tns"}) {
        for (int bad = 0; bad < 12; bad += 3) {
            SCOPED_TRACE(std::string(ext) + " bad entry " + std::to_string(bad));
            std::string text = std::string(ext) == ".mtx" ? "%%MatrixMarket matrix coordinate real general\n12 12 12\n"
                                                          : "# shape: 12 12\n";
            for (int k = 0; k < 12; ++k)
                text += k == bad ? "3 x 1\n" : std::to_string(k + 1) + " " + std::to_string(12 - k) + " 1.5\n";
            std::string path = files_on_disk.add("bad" + std::to_string(bad) + ext, text);
            std::string distributed = error_of([&] { DistributedMatrix::read(path, MPI_COMM_WORLD); });
            std::string serial = error_of([&] { read_tensor(path); });
            EXPECT_FALSE(serial.empty());
            EXPECT_EQ(distributed, serial);
        }
    }
    // Fewer and more entries than the size line declares.
    int count = 0;
    for (const char* text : {"%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 2\n3 3 3\n",
                             "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2 2\n3 3 3\n"}) {
        std::string path = files_on_disk.add("count" + std::to_string(count++) + ".mtx", text);
        std::string distributed = error_of([&] { DistributedMatrix::read(path, MPI_COMM_WORLD); });
        EXPECT_EQ(distributed, error_of([&] { read_tensor(path); }));
        EXPECT_FALSE(distributed.empty());
    }
}

} // namespace
} // namespace siskin::distributed::testing
